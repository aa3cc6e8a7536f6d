#!/usr/bin/env python3
"""Builds examples/research/keytruda.jsonl: the `make run` research demo's
recorded literature responses, for the offline question "What is the evidence
for Keytruda?" with --results 3 (the rules planner's query is the key term
"keytruda").

Only real responses, each filed under the URL medreact's client sends for the
same search:

- ClinicalTrials.gov API v2, search "keytruda", page size 3: the reply the
  registry gave, copied unchanged from tests/fixtures/literature (see its
  NOTICE: the workplace's shared data set, recorded by genomoncology/biomcp's
  tests, MIT). The recorder asked for a slightly different field list (its
  reply carries eligibility's minimumAge, which medreact does not ask for, and
  no officialTitle), so the URL here differs from the recorder's in `fields`
  only; query, page size and countTotal are the same.

No recorded PubMed or Europe PMC reply exists for "keytruda", so none is
here: in the demo those searches miss the cache and fail, as they would
offline, and the report names them. The judge's follow-up searches miss too.
(tests/fixtures/literature/europepmc_search_cancer_core.json is a real reply,
but to the query "cancer" without the preprint filter and with page size 25;
filing it under the demo's preprint URL would be an invented record, so it is
not used.) Nothing here is fetched from the network. Run from the repository
root after changing a URL builder: python3 examples/research/make_recording.py
"""
import json
import urllib.parse

FIX = "tests/fixtures/literature/"
QUERY = "keytruda"
N = 3
CT_FIELDS = ("NCTId,BriefTitle,OfficialTitle,OverallStatus,StartDate,CompletionDate,LeadSponsorName,BriefSummary,"
             "Condition,StudyType,Phase,EnrollmentCount,InterventionName")


def enc(s):  # LiteratureFetcher's UrlEncode: RFC 3986 unreserved kept, upper-case hex
    return urllib.parse.quote(s, safe="-_.~")


def read(name):
    with open(FIX + name, encoding="utf-8") as f:
        return f.read()


lines = [
    ("https://clinicaltrials.gov/api/v2/studies?format=json&query.term=" + enc(QUERY) + "&pageSize=" + str(N) +
     "&countTotal=true&fields=" + enc(CT_FIELDS), "application/json", read("ctgov_v2_search_keytruda_pagesize3.json")),
]
with open("examples/research/keytruda.jsonl", "w", encoding="utf-8") as out:
    out.write("# Recorded literature responses for the research demo; built by make_recording.py (see there).\n")
    for url, ctype, body in lines:
        out.write(json.dumps({"method": "GET", "url": url, "status": 200, "content_type": ctype, "body": body}) + "\n")
