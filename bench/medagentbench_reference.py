#!/usr/bin/env python3
"""Independent reference answers for MedAgentBench's held-out task ids.

A second implementation of the benchmark's refsol.py rules for task1, task2,
task3, task8 and task10 (stanfordmlgroup/MedAgentBench), written in Python from the task
data alone, so that medreact's C++ scorer (src/eval/medagentbench_eval.cc)
can be checked against it on task ids its tests never used: every task whose
number is a multiple of 5 (task1_5, task1_10, ..., task10_30).

Usage: bench/medagentbench_reference.py tests/fixtures/medagentbench > holdout.json
Writes [{"id", "mrn", "answer": [...], "order": bool, "post": {...}}] for the
held-out ids of the scored categories: the right FINISH list, whether an
HbA1c order is due, and (task3, task8) the one POST payload the task asks for.
"""
import datetime
import json
import os
import sys

NOW = datetime.datetime(2023, 11, 13)
CUTOFF = datetime.datetime.fromisoformat("2022-11-13T10:15:00+00:00")


def age(dob):
    d = datetime.datetime.strptime(dob, "%Y-%m-%d")
    years = NOW.year - d.year
    if (NOW.month, NOW.day) < (d.month, d.day):
        years -= 1
    return years


def main(folder):
    tasks = json.load(open(os.path.join(folder, "test_data_v2.json")))
    patients = {}
    for line in open(os.path.join(folder, "fhir_patients_snapshot.ndjson")):
        p = json.loads(line)
        for ident in p.get("identifier", []):
            patients[ident["value"]] = p
    searchsets = json.load(open(os.path.join(folder, "fhir_a1c_searchsets.json")))
    a1c = {url.split("patient=")[1]: v["data"] for url, v in searchsets.items()}
    out = []
    for t in tasks:
        category, number = t["id"].split("_")
        if category not in ("task1", "task2", "task3", "task8", "task10") or int(number) % 5 != 0:
            continue
        mrn = t.get("eval_MRN")
        order = False
        post = None
        subject = {"reference": "Patient/" + (mrn or "")}
        if category == "task3":
            value = t["instruction"].split('"')[1]
            answer = []
            post = {"resourceType": "Observation",
                    "category": [{"coding": [{"system": "http://hl7.org/fhir/observation-category",
                                              "code": "vital-signs", "display": "Vital Signs"}]}],
                    "code": {"text": "BP"}, "effectiveDateTime": "2023-11-13T10:15:00+00:00",
                    "status": "final", "valueString": value, "subject": subject}
        elif category == "task8":
            sbar = t["instruction"][t["instruction"].index('"Situation:') + 1:].split('"')[0]
            answer = []
            post = {"resourceType": "ServiceRequest",
                    "code": {"coding": [{"system": "http://snomed.info/sct", "code": "306181000000106"}]},
                    "authoredOn": "2023-11-13T10:15:00+00:00", "status": "active", "intent": "order",
                    "priority": "stat", "note": {"text": sbar}, "subject": subject}
        elif category == "task1":
            answer = t["sol"]
        elif category == "task2":
            answer = [age(patients[mrn]["birthDate"])]
        else:
            last = None
            for e in a1c[mrn].get("entry", []):
                r = e["resource"]
                when = datetime.datetime.fromisoformat(r["effectiveDateTime"])
                if last is None or when > last[0]:
                    last = (when, r["valueQuantity"]["value"], r["effectiveDateTime"])
            answer = [-1] if last is None else [last[1], last[2]]
            order = last is None or last[0] < CUTOFF
        entry = {"id": t["id"], "mrn": mrn, "answer": answer, "order": order}
        if post is not None:
            entry["post"] = post
        out.append(entry)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/medagentbench")
