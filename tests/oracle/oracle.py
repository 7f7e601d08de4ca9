#!/usr/bin/python3
# tests/oracle/oracle.py: an independent reading of a report bundle, written
# from the rules aivet(1) states and never from aivet's own code. Given the
# bundle (report.json, report.md, report.html, evidence/), the database it was
# made from and what the CLI printed, it recomputes every count, the rating,
# each claim's status and each cited piece of evidence, and prints one TAP-like
# line per check ("ok - ..." or "not ok - ...", diagnostics after "#"); the
# scenario scripts beside it number them. Python's standard library only.
#
#   oracle.py report --bundle DIR [--db DB] [--vendor-show JSON] [--vendor-list JSON]
#                    [--vendor-show-text FILE --vendor-list-text FILE] [--all-runs]
#   oracle.py plan --json FILE --text FILE [--price-in USD --price-out USD [--price-cached USD]]
#   oracle.py billed --show JSON [--text FILE]
#
# Each check names, in its comment, the sentence of aivet(1) it rests on.

import argparse
import hashlib
import html
import json
import os
import re
import sqlite3
import sys
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

SEVERITIES = ["critical", "high", "medium", "low", "info"]
# aivet(1), report: the vendor's rating is "the worst of" the ratings below, in
# this order of concern: unacceptable, concerns, incomplete, acceptable, not-assessed.
RATING_RANK = {"not-assessed": 0, "acceptable": 1, "incomplete": 2, "concerns": 3, "unacceptable": 4}
RISK_RANK = {None: -1, "none": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}

failures = 0


def check(cond, desc, got=None, want=None):
    """One line of TAP; the diagnostic says what was found against what the rule gives."""
    global failures
    if cond:
        print("ok - " + desc)
        return True
    failures += 1
    print("not ok - " + desc)
    if got is not None or want is not None:
        print("#   got:  " + json.dumps(got, sort_keys=True)[:1500])
        print("#   want: " + json.dumps(want, sort_keys=True)[:1500])
    return False


def is_(got, want, desc):
    return check(got == want, desc, got, want)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def by_severity(findings):
    counts = {s: 0 for s in SEVERITIES}
    for f in findings:
        counts[f["severity"]] += 1
    return counts


# ---- which findings are open ----------------------------------------------

def newest_results(runs):
    """(endpoint, probe) -> the run holding the newest completed result.

    aivet(1), vendor list: "the open findings (those of the newest completed
    result of each probe on each endpoint)"; report: superseded_findings are
    "those a later completed result of the same probe on the same endpoint
    replaced". Newest is by start time, the run number breaking a tie."""
    newest = {}
    for run in runs:
        if run["status"] != "completed":
            continue
        for res in run["results"]:
            key = (run["endpoint_id"], res["probe"])
            order = (run["started_at"], run["id"])
            if key not in newest or order > newest[key][0]:
                newest[key] = (order, run["id"])
    return {k: v[1] for k, v in newest.items()}


def check_open(report):
    runs = report["probe_runs"]
    newest = newest_results(runs)
    want_open, want_superseded = [], []
    for run in runs:
        for f in run["findings"]:
            holder = newest.get((run["endpoint_id"], f["probe"]))
            is_open = holder == run["id"]
            is_((f["open"], f["superseded_by_run"]), (is_open, None if is_open else holder),
                "finding %d (%s, run %d): open only while its run holds the newest completed result of %s"
                % (f["id"], f["code"], run["id"], f["probe"]))
            (want_open if is_open else want_superseded).append(f)
    # report: findings are "the open ones, most severe first".
    is_(sorted(f["id"] for f in report["findings"]), sorted(f["id"] for f in want_open),
        "findings[] lists exactly the open findings")
    ranks = [SEVERITIES.index(f["severity"]) for f in report["findings"]]
    is_(ranks, sorted(ranks), "findings[] runs most severe first")
    is_(sorted(f["id"] for f in report["superseded_findings"]), sorted(f["id"] for f in want_superseded),
        "superseded_findings[] lists exactly the findings a later result replaced")
    # summary.findings: "the open findings by severity: the ones the rating reads".
    is_(report["summary"]["findings"], by_severity(want_open), "summary.findings counts the open findings by severity")
    # summary.critical_findings: "open critical and high".
    is_(sorted(f["id"] for f in report["summary"]["critical_findings"]),
        sorted(f["id"] for f in want_open if f["severity"] in ("critical", "high")),
        "summary.critical_findings: the open critical and high findings")
    return want_open


# ---- assessments and claims -------------------------------------------------

def rating_reads(assessments):
    """aivet(1), report: rating_reads is "whether the vendor's rating reads this
    round: the latest final round of its questionnaire"."""
    latest = {}
    for a in assessments:
        if a["status"] != "final":
            continue
        q = a["questionnaire"]["qid"]
        if q not in latest or a["round"] > latest[q]["round"]:
            latest[q] = a
    return {a["id"] for a in latest.values()}


def assessment_rating(a):
    """aivet(1), assess: unacceptable when an answer carries high or critical
    risk; otherwise incomplete while a required question is unanswered;
    otherwise concerns for medium; otherwise acceptable."""
    worst = max((RISK_RANK[x["risk"]] for x in a["answers"]), default=-1)
    if worst >= RISK_RANK["high"]:
        return "unacceptable"
    if a["unanswered_required"]:
        return "incomplete"
    if worst == RISK_RANK["medium"]:
        return "concerns"
    return "acceptable"


def check_assessments(report):
    reads = rating_reads(report["assessments"])
    for a in report["assessments"]:
        is_(a["rating_reads"], a["id"] in reads,
            "assessment %d (round %d, %s): rating_reads only for the latest final round" % (a["id"], a["round"], a["status"]))
        for x in a["answers"]:
            # assess show: "an answer whose claim the evidence contradicts counts at least high".
            want = x["stated_risk"]
            if x["claim"] == "contradicted" and RISK_RANK[want] < RISK_RANK["high"]:
                want = "high"
            is_(x["risk"], want, "assessment %d, %s: the risk the rating counts" % (a["id"], x["question_id"]))
        is_(a["rating"], assessment_rating(a), "assessment %d: rated by the assessment rule" % a["id"])
        mine = [c for c in report["claims"] if c["assessment_id"] == a["id"]]
        contradicted = [c for c in mine if c["status"] == "contradicted"]
        is_(a["contradicted_claims"], len(contradicted), "assessment %d: contradicted_claims counts its contradicted claims" % a["id"])
        for x in a["answers"]:
            per_q = {c["status"] for c in mine if c["question_id"] == x["question_id"]}
            if len(per_q) == 1:
                is_(x["claim"], per_q.pop(), "assessment %d, %s: the answer's claim is its claim's status" % (a["id"], x["question_id"]))
            elif not per_q:
                is_(x["claim"], None, "assessment %d, %s: no claim, none shown" % (a["id"], x["question_id"]))
    return reads


# aivet(1), assess show: the bundled questionnaire's questions that the man page
# names for two rules: answers about every request, and the engine fact.
EVERY_REQUEST = ("prompt_integrity", "errors_are_errors")
ENGINE_FACT = ("pd_disaggregated",)


def check_engine_fact(c, tag, engine_run, by_run):
    """aivet(1): "a node reporting a prefill or decode role confirms "yes" and
    contradicts "no"; no node reporting one is consistent with "no" and leaves
    "yes" untested" (judged on the nodes the newest engine result read)."""
    nodes = []
    if engine_run is not None:
        res = next(r for r in by_run[engine_run]["results"] if r["probe"] == "engine")
        if res["verdict"] in ("pass", "fail"):
            nodes = [n for n in (res.get("details") or {}).get("nodes", []) if n.get("verdict") == "read"]
    role = any(n.get("mode") in ("prefill", "decode") for n in nodes)
    yes = c["answer"] == "yes"
    if role:
        want = "confirmed" if yes else "contradicted"
    elif nodes:
        want = "untested" if yes else "consistent"
    else:
        want = "untested"
    is_(c["status"], want, "%s: judged by the roles the engine's nodes report" % tag)
    is_(c["contradicting"], [], "%s: an engine fact cites no finding" % tag)


def check_claims(report, reads):
    runs = report["probe_runs"]
    newest = newest_results(runs)
    ep_id = {e["name"]: e["id"] for e in report["endpoints"]}
    ep_id.update({e["ref"]: e["id"] for e in report["endpoints"]})
    by_run = {r["id"]: r for r in runs}
    findings = {f["id"]: (r, f) for r in runs for f in r["findings"]}
    for c in report["claims"]:
        tag = "claim %s of assessment %d on %s" % (c["question_id"], c["assessment_id"], c["endpoint"])
        eid = ep_id.get(c["endpoint"])
        # assess show: "For each probe the newest completed result on the endpoint is judged."
        for p in c["probes"]:
            want_run = newest.get((eid, p["probe"]))
            want_verdict = None
            if want_run is not None:
                want_verdict = next(r["verdict"] for r in by_run[want_run]["results"] if r["probe"] == p["probe"])
            is_((p["run_id"], p["verdict"]), (want_run, want_verdict),
                "%s: probe %s judged on the newest completed result" % (tag, p["probe"]))
        # "contradicted when a finding that disproves it was raised ... and those findings are then cited"
        for x in c["contradicting"]:
            rf = findings.get(x["finding_id"])
            ok = rf is not None and rf[1]["code"] == x["code"] and rf[0]["id"] == x["run_id"] and rf[1]["probe"] == x["probe"] \
                and sorted(rf[1]["evidence"]) == sorted(x["evidence"]) and newest.get((eid, x["probe"])) == x["run_id"]
            check(ok, "%s: cites finding %s %s of run %s, as that finding is in the bundle, from the newest result"
                  % (tag, x["finding_id"], x["code"], x["run_id"]), x, rf and rf[1])
        if c["question_id"] in ENGINE_FACT:
            check_engine_fact(c, tag, newest.get((eid, "engine")), by_run)
            continue
        # "An answer about every request (every_request: prompt_integrity,
        # errors_are_errors) is at most consistent with passing probes."
        if c["question_id"] in EVERY_REQUEST:
            check(c["status"] != "confirmed", "%s: about every request, never confirmed by a sample" % tag,
                  c["status"], "not confirmed")
        if c["status"] == "contradicted":
            check(len(c["contradicting"]) > 0, "%s: contradicted, and the findings that disprove it are cited" % tag)
        elif c["status"] == "confirmed":
            # "confirmed only when every probe that tests it passed ... and nothing contradicts it"
            check(c["contradicting"] == [] and c["probes"] and all(p["verdict"] == "pass" for p in c["probes"]),
                  "%s: confirmed, every probe passed and nothing contradicts it" % tag, c["probes"], "all pass")
        else:
            check(c["contradicting"] == [], "%s: %s, nothing cited against it" % (tag, c["status"]), c["contradicting"], [])
    # summary.claims: "the claims of the rounds the rating reads, with
    # contradicted_not_rated counting the contradicted claims of rounds it does not read".
    want = {s: 0 for s in ("confirmed", "contradicted", "untested", "consistent")}
    not_rated = 0
    for c in report["claims"]:
        if c["assessment_id"] in reads:
            want[c["status"]] += 1
        elif c["status"] == "contradicted":
            not_rated += 1
    want["contradicted_not_rated"] = not_rated
    is_(report["summary"]["claims"], want, "summary.claims counts the rated rounds' claims, a newer round's contradicted apart")
    is_(sorted((c["assessment_id"], c["question_id"], c["endpoint"]) for c in report["summary"]["contradicted_claims"]),
        sorted((c["assessment_id"], c["question_id"], c["endpoint"]) for c in report["claims"]
               if c["assessment_id"] in reads and c["status"] == "contradicted"),
        "summary.contradicted_claims: those of the rounds the rating reads")
    return want


def vendor_rating(report, open_findings, reads, claims):
    """aivet(1), report: "the worst of each assessment's rating, unacceptable
    for a critical or high open finding or a contradicted claim, concerns for a
    medium open finding, and acceptable when probes ran and found nothing above
    low; not-assessed when there is neither a final round nor a completed run"."""
    parts = [a["rating"] for a in report["assessments"] if a["id"] in reads]
    if any(r["status"] == "completed" for r in report["probe_runs"]):
        parts.append("acceptable")
    sev = {f["severity"] for f in open_findings}
    if sev & {"critical", "high"} or claims["contradicted"]:
        parts.append("unacceptable")
    elif "medium" in sev:
        parts.append("concerns")
    return max(parts, key=lambda r: RATING_RANK[r], default="not-assessed")


# ---- evidence ---------------------------------------------------------------

def exchange_files(bundle, report):
    ex = {}
    for run in report["probe_runs"]:
        for x in run["exchanges"]:
            ex[x["evidence_id"]] = (run, x)
    return ex


def check_evidence(bundle, report):
    exchanges = exchange_files(bundle, report)
    for eid, (run, x) in sorted(exchanges.items()):
        path = os.path.join(bundle, x["file"])
        if not check(os.path.isfile(path), "exchange %d: its file %s is in the bundle" % (eid, x["file"])):
            continue
        is_(sha256_file(path), x["file_sha256"], "exchange %d: the file's SHA-256 is the one report.json gives" % eid)
        body = load(path)
        is_((body["evidence_id"], body["run_id"], body["probe"], body["seq"], body["tenant"]),
            (eid, run["id"], x["probe"], x["seq"], x["tenant"]), "exchange %d: the file is that exchange" % eid)
    files = {e["path"]: e for e in report["evidence_files"]}
    for path, e in sorted(files.items()):
        full = os.path.join(bundle, path)
        check(os.path.isfile(full) and sha256_file(full) == e["sha256"] and os.path.getsize(full) == e["size"],
              "evidence file %s: present with its SHA-256 and size" % path)
    for run in report["probe_runs"]:
        for f in run["findings"]:
            for eid in f["evidence"]:
                # report: "Each exchange the report cites as exchange-ID.json ... attached files as file-ID-NAME"
                held = eid in exchanges or any(re.match(r"evidence/file-%d-" % eid, p) for p in files)
                check(held, "finding %d (%s) cites evidence %d, which the bundle holds" % (f["id"], f["code"], eid))
                if eid in exchanges:
                    is_(exchanges[eid][0]["id"], run["id"], "finding %d: cited exchange %d is of its run" % (f["id"], eid))
            if f["code"] == "LEAK_CROSS_TENANT":
                check_leak(bundle, run, f, exchanges)
            if f["code"] == "KV_POOL_BELOW_CONTEXT":
                check_pool(bundle, report, run, f, exchanges)
            if f["code"] == "OVERSIZE_ACCEPTED":
                # "a prompt twice the advertised context got HTTP 200": a cited answer is a 200.
                st = [load(os.path.join(bundle, exchanges[e][1]["file"]))["response"]["status"]
                      for e in f["evidence"] if e in exchanges]
                check(200 in st, "finding %d OVERSIZE_ACCEPTED cites an exchange answered HTTP 200" % f["id"], st, 200)


def number(text):
    return int(text.replace(",", ""))


def check_pool(bundle, report, run, f, exchanges):
    """KV_POOL_BELOW_CONTEXT: the pool the line gives is the engine's own
    max_total_num_tokens in the cited response, below the endpoint's context."""
    m = re.search(r"max_total_num_tokens ([\d,]+) .* advertised context of ([\d,]+) tokens", f["message"])
    if not check(m is not None, "finding %d KV_POOL_BELOW_CONTEXT gives the pool and the context" % f["id"], f["message"]):
        return
    pool, ctx = number(m.group(1)), number(m.group(2))
    # The context advertised when the run was made is the one its result recorded;
    # the endpoint's record in the report is today's (a fix may have changed it).
    res = next((r for r in run["results"] if r["probe"] == f["probe"]), {})
    advertised = (res.get("details") or {}).get("advertised_context")
    is_((ctx, pool < ctx), (advertised, True), "finding %d: the pool is below the context advertised at the run" % f["id"])
    shown = []
    for e in f["evidence"]:
        if e in exchanges:
            body = load(os.path.join(bundle, exchanges[e][1]["file"]))["response"].get("body")
            try:
                shown.append(json.loads(body).get("max_total_num_tokens"))
            except (TypeError, ValueError, AttributeError):
                shown.append(None)
    check(pool in shown, "finding %d: the cited engine response says max_total_num_tokens %d" % (f["id"], pool), shown, pool)


def response_text(x):
    r = x.get("response") or {}
    parts = [r.get("body") if isinstance(r.get("body"), str) else json.dumps(r.get("body")),
             r.get("body_excerpt") or ""]
    return "".join(p for p in parts if p)


def planted_by(x, nonce):
    """Whether the request of exchange x carried the nonce: in its recipe's
    nonces (a regenerated prompt) or in the request body the bundle holds."""
    req = x.get("request") or {}
    prompt = (req.get("recipe") or {}).get("prompt") or {}
    return nonce in (prompt.get("nonces") or []) or (isinstance(req.get("body"), str) and nonce in req["body"])


def received(x):
    """The canaries a response holds: report(1) lists them (canaries) for
    sealed leaked content; an open body is searched whole."""
    r = x.get("response") or {}
    return list(r.get("canaries") or []), response_text(x)


def check_leak(bundle, run, f, exchanges):
    """A leak cites a response holding another tenant's canary: each pair
    "a response to tenant 'A' contained canaries that tenant 'B' sent" in the
    finding's message is shown by a cited exchange of tenant A whose response
    holds a nonce planted by an exchange of tenant B in the same run."""
    files = {}
    for eid, (r, x) in exchanges.items():
        if r["id"] == run["id"]:
            files[eid] = load(os.path.join(bundle, x["file"]))
    pairs = re.findall(r"a response to tenant '([^']+)' contained canaries that tenant '([^']+)' sent", f["message"])
    check(len(pairs) > 0, "finding %d LEAK_CROSS_TENANT says which tenant received whose canaries" % f["id"], f["message"])
    check_leak_details(run, files, f)
    for got_by, sent_by in pairs:
        senders = [x for x in files.values() if x["tenant"] == sent_by]
        shown = []
        for eid in f["evidence"]:
            x = files.get(eid)
            if x is None or x["tenant"] != got_by:
                continue
            canaries, text = received(x)
            cands = canaries or [n for s in senders for n in
                                 ((s["request"].get("recipe") or {}).get("prompt") or {}).get("nonces") or []]
            if any(n in text and any(planted_by(s, n) for s in senders) for n in cands):
                shown.append(eid)
        check(got_by != sent_by and shown,
              "finding %d: a cited response to %s holds a canary %s planted (exchanges %s)"
              % (f["id"], got_by, sent_by, shown), f["evidence"], "an exchange of %s holding a nonce of %s" % (got_by, sent_by))


def check_leak_details(run, files, f):
    """The canary probe's record of each leak (probe_result.details.leaks:
    nonce, owner_tenant and the exchange that planted it, found_in and
    found_by) against the exchanges themselves; a leak to another tenant is
    cited by its finding."""
    res = next((r for r in run["results"] if r["probe"] == f["probe"]), None)
    leaks = ((res or {}).get("details") or {}).get("leaks") or []
    for l in leaks:
        got, owner = files.get(l["found_in"]), files.get(l["evidence"])
        ok = got is not None and owner is not None and got["tenant"] == l["found_by"] \
            and l["nonce"] in response_text(got) and owner["tenant"] == l["owner_tenant"] \
            and planted_by(owner, l["nonce"]) and l["other_tenant"] == (l["owner_tenant"] != l["found_by"])
        check(ok, "run %d: leak of %s found in exchange %s (%s), planted by exchange %s (%s), as the exchanges show"
              % (run["id"], l["nonce"], l["found_in"], l["found_by"], l["evidence"], l["owner_tenant"]), l)
        if l["other_tenant"]:
            check(l["found_in"] in f["evidence"] and l["evidence"] in f["evidence"],
                  "finding %d cites the response %s that leaked and the request %s it came from"
                  % (f["id"], l["found_in"], l["evidence"]), f["evidence"], [l["found_in"], l["evidence"]])


# ---- incident clocks ---------------------------------------------------------

def instant(t):
    """An ISO 8601 time with its zone (Z or +hh:mm), as a UTC datetime."""
    if t is None:
        return None
    return datetime.fromisoformat(t.replace("Z", "+00:00")).astimezone(timezone.utc)


DAY = timedelta(days=1)


def hhs_annual(discovered, zone):
    """aivet(1), hhs: fewer than 500 individuals: 60 days after the end of the
    calendar year of discovery, "all of 1 March, or of 29 February in a leap
    year", the year and the day the organisation's zone's. The date, and the
    instant the day ends (midnight starting the next day in that zone)."""
    year = discovered.astimezone(zone).year + 1
    first = datetime(year, 1, 1, tzinfo=zone)
    day = first + timedelta(days=59)  # day 60 of the year: 1 March, or 29 February in a leap year
    end = datetime(day.year, day.month, day.day, tzinfo=zone) + DAY
    return day.strftime("%Y-%m-%d"), end.astimezone(timezone.utc)


def want_clocks(inc, zone):
    """Each clock's applies, start and due from the incident's facts, the
    stricter case assumed for an unknown fact (aivet(1), Notification clocks:
    PHI unknown counts as involved, an unknown number of individuals as 500 or
    more, EU data unknown as involved, the vendor's notice time unknown as 24 hours)."""
    disc = instant(inc["discovered_at"])
    phi = inc["phi"] != "no"
    n, residents = inc["individuals"], inc["state_residents"]
    sixty = disc + timedelta(days=60)
    w = {"hipaa-individuals": (phi, disc, sixty, None)}
    if n is None or n >= 500:
        w["hhs"] = (phi, disc, sixty, None)
    else:
        date, end = hhs_annual(disc, zone)
        w["hhs"] = (phi, disc, end, date)
    media = residents > 500 if residents is not None else (n is None or n > 500)
    w["media"] = (phi and media, disc, sixty, None)
    start = instant(inc["vendor_discovered_at"]) or disc
    sla = inc["vendor_sla"]
    if sla is None:
        w["vendor-sla"] = (True, start, start + timedelta(hours=24), None)
    elif sla["value"] == "none":
        w["vendor-sla"] = (False, None, None, None)
    else:
        w["vendor-sla"] = (True, start, start + timedelta(seconds=sla["seconds"]), None)
    w["gdpr-sa"] = (inc["eu_data"] is not False, disc, disc + timedelta(hours=72), None)
    return w


def stopping_entry(inc, clock):
    """vendor-sla: "Stopped by the earliest vendor-notice entry"; another clock
    by the earliest notification-sent entry naming it."""
    cands = [e for e in inc["timeline"]
             if (clock == "vendor-sla" and e["kind"] == "vendor-notice")
             or (e["kind"] == "notification-sent" and clock in ((e.get("details") or {}).get("clocks") or []))]
    return min(cands, key=lambda e: (instant(e["at_utc"]), e["id"]), default=None)


def check_incidents(report, md, doc):
    zone_name = report["organisation_timezone"]
    zone = ZoneInfo(zone_name) if zone_name else timezone.utc
    for inc in report["incidents"]:
        is_(inc["as_of"], report["generated_at"], "incident %d: clocks as of the report's generated_at" % inc["id"])
        as_of = instant(inc["as_of"])
        want = want_clocks(inc, zone)
        is_(sorted(c["id"] for c in inc["clocks"]), sorted(want), "incident %d: the five clocks" % inc["id"])
        for c in inc["clocks"]:
            applies, start, due, date = want[c["id"]]
            tag = "incident %d, %s" % (inc["id"], c["id"])
            got = (c["applies"], instant(c["start"]), instant(c["due"]), c["due_date"])
            check(got == (applies, start if applies else None, due if applies else None, date if applies else None),
                  "%s: applies, start, due and due_date from the facts" % tag,
                  [c["applies"], c["start"], c["due"], c["due_date"]],
                  [applies, start and start.isoformat(), due and due.isoformat(), date])
            if not applies:
                is_(c["state"], "not-applicable", "%s: not applicable" % tag)
                continue
            stop = stopping_entry(inc, c["id"])
            if stop is not None and instant(stop["at_utc"]) <= as_of:
                at = instant(stop["at_utc"])
                is_((c["state"], c["stopped_by_entry"], instant(c["stopped_at"]), c["seconds_left"]),
                    ("met" if at <= due else "late", stop["id"], at, int((due - at).total_seconds())),
                    "%s: stopped by entry %d, met or late by its time" % (tag, stop["id"]))
            else:
                is_((c["state"], c["stopped_at"], c["seconds_left"]),
                    ("overdue" if as_of >= due else "running", None, int((due - as_of).total_seconds())),
                    "%s: running or overdue, the seconds left to its due time" % tag)
            # due_text: a date as "by DATE, end of day ZONE" (UTC assumed and said
            # so until a zone is set); else the instant, in the organisation's zone.
            if date is not None:
                where = zone_name if zone_name else "UTC (assumed: no zone set)"
                is_(c["due_text"], "by %s, end of day %s" % (date, where), "%s: the due text names the day and its zone" % tag)
            else:
                is_(instant((c["due_text"] or "").split(" ")[0] or None), due, "%s: the due text is the due instant" % tag)
            if c["due_text"] is None:
                continue
            check(c["due_text"] in md, "%s: report.md shows the due text %s" % (tag, c["due_text"]))
            check(html.escape(c["due_text"], quote=False) in doc, "%s: report.html shows the due text" % tag)


# ---- the database -------------------------------------------------------------

def check_db(db, report):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    run_ids = [r["id"] for r in report["probe_runs"]]
    marks = ",".join("?" * len(run_ids)) or "NULL"
    rows = con.execute("SELECT id, run_id, probe, code, severity FROM finding WHERE run_id IN (%s) ORDER BY id" % marks,
                       run_ids).fetchall()
    got = sorted((f["id"], r["id"], f["probe"], f["code"], f["severity"]) for r in report["probe_runs"] for f in r["findings"])
    is_(got, [tuple(x) for x in rows], "every finding the database holds for the report's runs, as recorded")
    ev = {}
    for fid, eid in con.execute("SELECT finding_id, evidence_id FROM finding_evidence"):
        ev.setdefault(fid, []).append(eid)
    for r in report["probe_runs"]:
        for f in r["findings"]:
            is_(sorted(f["evidence"]), sorted(ev.get(f["id"], [])), "finding %d: the evidence the database links to it" % f["id"])
        row = con.execute("SELECT status, endpoint_id, started_at, tokens_in, tokens_out FROM probe_run WHERE id = ?",
                          (r["id"],)).fetchone()
        is_(list(row), [r["status"], r["endpoint_id"], r["started_at"], r["tokens_in"], r["tokens_out"]],
            "run %d: status, endpoint, start and tokens as recorded" % r["id"])
        res = con.execute("SELECT probe, verdict FROM probe_result WHERE run_id = ? ORDER BY probe", (r["id"],)).fetchall()
        is_(sorted((x["probe"], x["verdict"]) for x in r["results"]), [tuple(x) for x in res],
            "run %d: each probe's verdict as recorded" % r["id"])
    con.close()


# ---- rendered forms -------------------------------------------------------------

def md_table_after(md, heading):
    """The rows of the first table after a heading line, each a list of cells."""
    lines = md.split("\n")
    try:
        i = next(n for n, l in enumerate(lines) if l.startswith(heading))
    except StopIteration:
        return None
    rows = []
    for l in lines[i + 1:]:
        if l.startswith("#"):
            break
        if l.startswith("|"):
            rows.append([c.strip() for c in l.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[2:] if len(rows) >= 2 else []


SUMMARY_COLS = ["open critical", "open high", "open medium", "open low", "open info",
                "claims confirmed", "claims contradicted", "claims untested", "claims consistent"]


def summary_numbers(report):
    s = report["summary"]
    return [str(s["findings"][k]) for k in SEVERITIES] + \
        [str(s["claims"][k]) for k in ("confirmed", "contradicted", "untested", "consistent")]


def check_md(bundle, report):
    with open(os.path.join(bundle, "report.md"), encoding="utf-8") as f:
        md = f.read()
    want = summary_numbers(report)
    # The summary table has no heading of its own: its values are two lines below its header.
    lines = md.split("\n")
    i = next((n for n, l in enumerate(lines) if l.startswith("| open critical |")), None)
    got = None if i is None else [c.strip() for c in lines[i + 2].strip().strip("|").split("|")]
    is_(got, want, "report.md: the summary table's counts are report.json's")
    m = re.search(r"^Overall rating: \*\*([a-z-]+)\*\*", md, re.M)
    is_(m and m.group(1), report["summary"]["rating"], "report.md: the overall rating")
    rows = md_table_after(md, "## Open findings") or []
    is_([(r[0], r[1], r[2], r[3]) for r in rows],
        [(f["severity"], f["code"], f["probe"], str(f["run_id"])) for f in report["findings"]],
        "report.md: the open findings table, row for row")
    rows = md_table_after(md, "### Critical and high findings") or []
    is_([(r[1], r[3]) for r in rows], [(f["code"], str(f["run_id"])) for f in report["summary"]["critical_findings"]],
        "report.md: the critical and high findings")
    rows = md_table_after(md, "## Superseded findings") or []
    is_([(r[1], r[3], r[4]) for r in rows],
        [(f["code"], str(f["run_id"]), str(f["superseded_by_run"])) for f in report["superseded_findings"]],
        "report.md: the superseded findings with the run that replaced each")
    # Each finding row cites the evidence report.json gives it.
    for r, f in zip(md_table_after(md, "## Open findings") or [], report["findings"]):
        cited = sorted(int(x) for x in re.findall(r"\(evidence/exchange-(\d+)\.json\)", r[-1]))
        held = sorted(e for e in f["evidence"] if os.path.isfile(os.path.join(bundle, "evidence/exchange-%d.json" % e)))
        is_(cited, held, "report.md: finding %d cites the exchanges report.json gives" % f["id"])
    rows = md_table_after(md, "## Claims against evidence") or []
    is_(sorted((r[0], r[1].split(" (")[0], r[4]) for r in rows),
        sorted((c["question_id"], "round %d of assessment %d" % (round_of(report, c["assessment_id"]), c["assessment_id"]), c["status"])
               for c in report["claims"]),
        "report.md: each claim with its round and status")
    not_rated = report["summary"]["claims"]["contradicted_not_rated"]
    if not_rated:
        like = re.search(r"Of the rounds the rating reads; (\d+) more in a round it does not read", md)
        is_(like and int(like.group(1)), not_rated, "report.md: the contradicted claims of rounds the rating does not read")
    return md


def round_of(report, aid):
    return next(a["round"] for a in report["assessments"] if a["id"] == aid)


def check_html(bundle, report):
    with open(os.path.join(bundle, "report.html"), encoding="utf-8") as f:
        doc = f.read().replace("\n", "")
    head = "".join("<th>%s</th>" % c for c in SUMMARY_COLS) + "</tr><tr>"
    i = doc.find(head)
    got = None
    if i >= 0:
        row = doc[i + len(head):].split("</tr>")[0]
        got = [html.unescape(x) for x in re.findall(r"<td>([^<]*)</td>", row)]
    is_(got, summary_numbers(report), "report.html: the summary table's counts are report.json's")
    m = re.search(r"Overall rating: <span [^>]*>([a-z-]+)</span>", doc)
    is_(m and m.group(1), report["summary"]["rating"], "report.html: the overall rating")
    for f in report["findings"]:
        for e in f["evidence"]:
            if os.path.isfile(os.path.join(bundle, "evidence/exchange-%d.json" % e)):
                check('href="evidence/exchange-%d.json"' % e in doc, "report.html: links cited exchange %d" % e)
    return doc


def check_cli(report, show, lst):
    """vendor show: "its open findings counted by severity (the counts a
    report's summary.findings gives)"; vendor list: the same rating everywhere."""
    s = report["summary"]
    if show is not None:
        is_(show["open_findings"], s["findings"], "vendor show --json: open_findings are the report's summary.findings")
        is_(show["rating"], s["rating"], "vendor show --json: the report's rating")
        is_(show["rating_basis"], s["rating_basis"], "vendor show --json: the report's rating basis")
        is_(show.get("since_approval"), s["since_approval"], "vendor show --json: since_approval as the report gives it")
    if lst is not None:
        v = next((v for v in lst if v["id"] == report["vendor"]["id"]), None)
        is_(v and (v["rating"], v["rating_basis"], v["since_approval"]),
            (s["rating"], s["rating_basis"], s["since_approval"]), "vendor list --json: the report's rating, basis and since_approval")
    is_(s["open_findings"], s["findings"], "summary.open_findings (as vendor list gives them) equal summary.findings")


def check_cli_text(report, show_text, list_text):
    """The text forms: vendor show's rating line (rating: basis) and open
    findings by severity, vendor list's RATING column."""
    s = report["summary"]
    lines = show_text.split("\n")
    rating = next((l for l in lines if l.startswith("  rating ")), "")
    is_(rating.split(None, 1)[1:] if rating else None, ["%s: %s" % (s["rating"], s["rating_basis"])],
        "vendor show: the report's rating and its basis")
    line = next((l for l in lines if l.startswith("  findings ")), "")
    counts = {sev: int(n) for n, sev in re.findall(r"(\d+) (critical|high|medium|low|info)", line)}
    want = {k: v for k, v in s["findings"].items() if v}
    check(counts == want and (want or line.rstrip().endswith("open: none")),
          "vendor show: the open findings the report counts", line, want)
    name = report["vendor"]["name"]
    row = next((l.split() for l in list_text.split("\n") if l.split()[1:2] == [name]), None)
    is_(row and row[-1], s["rating"], "vendor list: the report's rating")


def cmd_report(a):
    bundle = a.bundle
    report = load(os.path.join(bundle, "report.json"))
    is_(report["format"], "aivet-report/1", "report.json is an aivet-report/1")
    open_findings = check_open(report)
    reads = check_assessments(report)
    claims = check_claims(report, reads)
    is_(report["summary"]["rating"], vendor_rating(report, open_findings, reads, claims),
        "summary.rating is the worst of the rated rounds, the open findings and the contradicted claims")
    check_evidence(bundle, report)
    if a.db:
        check_db(a.db, report)
    md = check_md(bundle, report)
    doc = check_html(bundle, report)
    check_incidents(report, md, doc)
    if a.all_runs:
        check_cli(report, a.vendor_show and load(a.vendor_show), a.vendor_list and load(a.vendor_list))
        if a.vendor_show_text and a.vendor_list_text:
            with open(a.vendor_show_text, encoding="utf-8") as f, open(a.vendor_list_text, encoding="utf-8") as g:
                check_cli_text(report, f.read(), g.read())


# ---- cost plans -------------------------------------------------------------------

def usd(tokens, price):
    return tokens * price / 1e6


def cmd_plan(a):
    """aivet(1), probe run: the plan gives requests and tokens per probe and in
    all, and "the cost of both when the endpoint has prices" (per million
    tokens); without prices the cost is null."""
    plan = load(a.json)
    for k in ("requests", "tokens_in", "tokens_in_expected", "tokens_out"):
        is_(plan[k], sum(p[k] for p in plan["probes"]), "plan: %s is the sum over the probes" % k)
    is_(plan["largest_prompt_tokens"] <= plan["tokens_in"], True, "plan: the largest prompt is within the input tokens")
    priced = a.price_in is not None and a.price_out is not None
    if not priced:
        is_((plan["cost_usd"], plan["cost_usd_expected"]), (None, None), "plan: no prices, no cost")
    else:
        want = usd(plan["tokens_in"], a.price_in) + usd(plan["tokens_out"], a.price_out)
        check(plan["cost_usd"] is not None and abs(plan["cost_usd"] - want) < 1e-6 + 1e-9 * want,
              "plan: cost_usd is tokens_in x %g + tokens_out x %g per million" % (a.price_in, a.price_out), plan["cost_usd"], want)
        cached = plan.get("tokens_in_cached_expected") or 0
        if a.price_cached is None:
            cached = 0
        want_e = usd(plan["tokens_in_expected"] - cached, a.price_in) + usd(cached, a.price_cached or 0) \
            + usd(plan["tokens_out"], a.price_out)
        check(plan["cost_usd_expected"] is not None and abs(plan["cost_usd_expected"] - want_e) < 1e-6 + 1e-9 * want_e,
              "plan: cost_usd_expected prices the expected input the same way", plan["cost_usd_expected"], want_e)
    if a.text:
        with open(a.text, encoding="utf-8") as f:
            text = f.read()
        total = dict(name="total", requests=plan["requests"], tokens_in=plan["tokens_in"], tokens_out=plan["tokens_out"])
        for p in plan["probes"] + [total]:
            line = next((l for l in text.split("\n") if re.match(r"\s*%s\s" % re.escape(p["name"]), l)), None)
            nums = [int(x.replace(",", "")) for x in re.findall(r"\d[\d,]*", line or "")]
            check(line is not None and p["requests"] in nums and p["tokens_in"] in nums and p["tokens_out"] in nums,
                  "plan text: %s shows %d requests, %d tokens in, %d out" % (p["name"], p["requests"], p["tokens_in"], p["tokens_out"]),
                  line, p)
        line = next((l for l in text.split("\n") if re.match(r"\s*expected\s", l)), "")
        is_(re.findall(r"^\s*expected\s+([\d,]+) tokens in", line) == ["{:,}".format(plan["tokens_in_expected"])], True,
            "plan text: the expected input, %d tokens" % plan["tokens_in_expected"])
        if priced:
            shown = ["%.2f" % plan["cost_usd"], "%.2f" % plan["cost_usd_expected"]]
            check(all(("USD " + s) in text or ("$" + s) in text for s in shown),
                  "plan text: the costs USD %s and USD %s" % tuple(shown), text[-800:], shown)
        else:
            check("USD" not in text and "$" not in text, "plan text: no cost without prices", text[-400:], "no USD")


def cmd_billed(a):
    """aivet(1), probe run: "A priced plan keeps the prices it was made at ...
    and the run (probe show --json) gives billed {tokens_in, tokens_out,
    cost_usd}, the billed tokens at those prices (null without them); the text
    says it as billed by the vendor: N tokens in, M out, USD x.xx"."""
    show = load(a.show)
    plan, billed = show["plan"], show["billed"]
    is_((billed["tokens_in"], billed["tokens_out"]), (plan["billed"]["tokens_in"], plan["billed"]["tokens_out"]),
        "probe show: billed tokens are the ones the run's plan kept")
    pin, pout = plan.get("price_in_per_mtok"), plan.get("price_out_per_mtok")
    if pin is None or pout is None:
        is_(billed["cost_usd"], None, "probe show: no prices in the plan, no billed cost")
        want = None
    else:
        want = usd(billed["tokens_in"], pin) + usd(billed["tokens_out"], pout)
        check(billed["cost_usd"] is not None and abs(billed["cost_usd"] - want) < 1e-6,
              "probe show: billed cost_usd is the billed tokens at the plan's prices (%g, %g per million)" % (pin, pout),
              billed["cost_usd"], want)
    if a.text:
        with open(a.text, encoding="utf-8") as f:
            text = f.read()
        line = "billed by the vendor: {:,} tokens in, {:,} out".format(billed["tokens_in"], billed["tokens_out"])
        if want is not None:
            line += ", USD %.2f" % want
        check(line in text, "probe show text: " + line, text[:400], line)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("report")
    r.add_argument("--bundle", required=True)
    r.add_argument("--db")
    r.add_argument("--vendor-show")
    r.add_argument("--vendor-list")
    r.add_argument("--vendor-show-text")
    r.add_argument("--vendor-list-text")
    r.add_argument("--all-runs", action="store_true", help="the report covers every run: the CLI must agree")
    p = sub.add_parser("plan")
    p.add_argument("--json", required=True)
    p.add_argument("--text")
    p.add_argument("--price-in", type=float)
    p.add_argument("--price-out", type=float)
    p.add_argument("--price-cached", type=float)
    b = sub.add_parser("billed")
    b.add_argument("--show", required=True)
    b.add_argument("--text")
    a = ap.parse_args()
    {"report": cmd_report, "plan": cmd_plan, "billed": cmd_billed}[a.cmd](a)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
