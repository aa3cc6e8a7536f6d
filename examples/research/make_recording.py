#!/usr/bin/env python3
"""Builds examples/research/keytruda.jsonl: the `make run` research demo's
recorded responses, for the offline question "What is the evidence for
Keytruda in cancer?" with --results 3 (the rules planner's query is the key
terms "keytruda cancer").

Each line pairs the exact URL the literature clients send for that query
(default public base URLs) with a response body from tests/fixtures/literature
(see its NOTICE). The bodies were recorded for nearby queries, so they stand in
for the demo's: the ClinicalTrials.gov search is the real response to
"keytruda" (pageSize 3); the PubMed efetch is a real PubMed record (PMID
27797938, not about Keytruda); the esearch reply naming it and the Europe PMC
preprint page are hand-made (marked so in the fixture names). Nothing here is
fetched from the network. Run from the repository root after changing a URL
builder: python3 examples/research/make_recording.py
"""
import json
import urllib.parse

FIX = "tests/fixtures/literature/"
QUERY = "keytruda cancer"
N = 3
CT_FIELDS = ("NCTId,BriefTitle,OfficialTitle,OverallStatus,StartDate,CompletionDate,LeadSponsorName,BriefSummary,"
             "Condition,StudyType,Phase,EnrollmentCount,InterventionName")


def enc(s):  # LiteratureFetcher's UrlEncode: RFC 3986 unreserved kept, upper-case hex
    return urllib.parse.quote(s, safe="-_.~")


def read(name):
    with open(FIX + name, encoding="utf-8") as f:
        return f.read()


esearch = json.dumps({"header": {"type": "esearch", "version": "0.3"},
                      "esearchresult": {"count": "1", "retmax": "1", "retstart": "0", "idlist": ["27797938"]}},
                     separators=(",", ":"))
lines = [
    ("https://clinicaltrials.gov/api/v2/studies?format=json&query.term=" + enc(QUERY) + "&pageSize=" + str(N) +
     "&countTotal=true&fields=" + enc(CT_FIELDS), "application/json", read("ctgov_v2_search_keytruda_pagesize3.json")),
    ("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=pubmed&term=" + enc(QUERY) + "&retmax=" + str(N) +
     "&retmode=json&sort=relevance&tool=medreact", "application/json", esearch),
    ("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi?db=pubmed&id=27797938&retmode=xml&tool=medreact",
     "text/xml", read("ncbi_efetch_pubmed_structured_abstract.xml")),
    ("https://www.ebi.ac.uk/europepmc/webservices/rest/search?query=" + enc("(" + QUERY + ") AND SRC:PPR") +
     "&resultType=core&format=json&pageSize=" + str(N) + "&cursorMark=" + enc("*"), "application/json",
     read("europepmc_search_preprints_core.handmade.json")),
]
with open("examples/research/keytruda.jsonl", "w", encoding="utf-8") as out:
    out.write("# Recorded literature responses for the research demo; built by make_recording.py (see there).\n")
    for url, ctype, body in lines:
        out.write(json.dumps({"method": "GET", "url": url, "status": 200, "content_type": ctype, "body": body}) + "\n")
