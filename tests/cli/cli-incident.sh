#!/bin/sh
# cli-incident.sh: "aivet incident" end to end on a real database — opening
# (by hand and from a probe finding), the status workflow and its refusals,
# timeline entries with their zones, clocks stopped by notices, the vendor's
# contractual notice time from its answers, tasks, links, and immutability:
# an entry changed with sqlite3 behind aivet's back fails "aivet audit verify".
. "$TESTS_SRCDIR/lib/lib.sh"

export AIVET_NOW=2026-03-20T12:00:00Z
"$AIVET" vendor add acme >/dev/null
"$AIVET" vendor add other >/dev/null
"$AIVET" endpoint add acme --name chat --api openai --url http://127.0.0.1:9/v1 --model m \
	--context 1048576 >/dev/null
"$AIVET" endpoint add other --name chat --api openai --url http://127.0.0.1:9/v1 --model m \
	--context 1000 >/dev/null

# ---- bad input changes nothing ----
snap=$(db_snapshot)
run incident open acme --endpoint acme/chat
is "$rc" 2 "open without --title is a usage error"
is "$(echo "$errout" | head -1)" "aivet: incident open needs --title" "naming --title"
run incident open acme --title t --endpoint other/chat
is "$errout" "aivet: --endpoint other/chat does not belong to vendor acme" "endpoint of another vendor"
run incident open acme --title t --discovered 2026-03-02T09:00:00
is "$errout" "aivet: --discovered: bad time '2026-03-02T09:00:00': expected ISO 8601 such as 2026-11-30 or 2026-11-30T14:05:00Z (a time needs Z or an offset)" "a time without a zone is refused"
run incident open acme --title t --discovered 2026-04-01T00:00:00Z
is "$errout" "aivet: --discovered 2026-04-01T00:00:00Z is in the future" "discovery in the future"
run incident open acme --title t --window-start 2026-03-10T00:00:00Z --window-end 2026-03-01T00:00:00Z
is "$errout" "aivet: --window-end 2026-03-01T00:00:00Z is before --window-start 2026-03-10T00:00:00Z" "window backwards"
run incident open acme --title t --window-start 2026-03-10T00:00:00Z
is "$(echo "$errout" | head -1)" "aivet: --window-start and --window-end go together" "half a window"
run incident open acme --title t --individuals 10 --state-residents 11
is "$errout" "aivet: --state-residents 11 is more than --individuals 10" "more residents than individuals"
run incident open acme --title t --phi maybe
is "$(echo "$errout" | head -1)" "aivet: --phi: 'maybe' is not yes, no or unknown" "bad --phi"
run incident open acme --title t --at 2026-03-01T00:00:00Z
is "$(echo "$errout" | head -1)" "aivet: --at is not an option here" "an option of another subcommand"
run incident open nobody --title t
is "$errout" "aivet: unknown vendor 'nobody' (see 'aivet vendor list')" "unknown vendor"
run incident list acme
is "$rc:$(echo "$errout" | head -1)" "2:aivet: unexpected argument 'acme'" "incident list takes no target (--vendor does)"
run incident open --title t
is "$rc:$(echo "$errout" | head -1)" "2:aivet: incident open needs exactly one VENDOR" "a vendor is needed"
run incident open acme acme --title t
is "$rc:$(echo "$errout" | head -1)" "2:aivet: incident open needs exactly one VENDOR" "one vendor only"
is "$(db_snapshot)" "$snap" "refused opens changed nothing"

# ---- open and show ----
run incident open acme --title "Cross-tenant completions" --endpoint acme/chat \
	--discovered 2026-03-02T09:00:00-05:00 --phi yes --individuals 1200 --severity 1 --eu-data no --vendor-sla none
is "$out" "incident 1 opened for vendor acme (discovered 2026-03-02T14:00:00.000Z)" "opened"
run incident show 1 --json
is "$(echo "$out" | json '[.id, .vendor, .endpoint, .status, .severity, .phi, .individuals, .eu_data, .discovered_at, .discovered_at_local] | map(tostring) | join(" ")')" \
	"1 acme acme/chat new 1 yes 1200 false 2026-03-02T14:00:00.000Z 2026-03-02T09:00:00-05:00" "fields"
is "$(echo "$out" | json '.timeline[0] | [.kind, .at, .at_utc, .actor, .text] | join("|")')" \
	"detection|2026-03-02T09:00:00-05:00|2026-03-02T14:00:00.000Z|tester|Incident opened: Cross-tenant completions" \
	"the opening entry: detection at the discovery time as given"
is "$(echo "$out" | json '.clocks | map(.id + "=" + .state) | join(" ")')" \
	"hipaa-individuals=running hhs=running media=running vendor-sla=not-applicable gdpr-sa=not-applicable" \
	"clocks for PHI, 1200 individuals, residents per state unknown"
is "$(echo "$out" | json '.clocks[0] | [.due, .due_local, (.seconds_left | tostring)] | join(" ")')" \
	"2026-05-01T14:00:00.000Z 2026-05-01T09:00:00-05:00 3636000" "individuals due 60 days on, time left"
is "$(echo "$out" | json '.clocks[2].basis')" \
	"PHI involved; 1200 individuals and residents per state unknown: assumed more than 500 in one state (give --state-residents)" \
	"media assumed until residents per state are known"

# ---- facts established later ----
run incident edit 1 --state-residents 400 --window-start 2026-02-16T00:00:00Z \
	--window-end 2026-03-01T23:59:59Z --at 2026-03-03T10:00:00-05:00
is "$out" "incident 1 updated" "edit"
run incident show 1 --json
is "$(echo "$out" | json '[.state_residents, .window_start, .window_end, .clocks[2].state] | map(tostring) | join(" ")')" \
	"400 2026-02-16T00:00:00.000Z 2026-03-01T23:59:59.000Z not-applicable" "residents per state known: no media notice"
is "$(echo "$out" | json '.timeline[1] | [.kind, .at, .text] | join("|")')" \
	"decision|2026-03-03T10:00:00-05:00|Set state residents 400, window 2026-02-16T00:00:00Z to 2026-03-01T23:59:59Z" \
	"the change is a decision entry"
run incident edit 1
is "$(echo "$errout" | head -1)" "aivet: incident edit: nothing to change" "edit with nothing"

# ---- workflow ----
run incident status 1 contained
is "$rc" 2 "skipping a step is refused"
is "$errout" "aivet: incident 1 is new: it can move to investigating, not contained" "naming the next step"
run incident status 1 bogus
is "$errout" "aivet: unknown status 'bogus' (one of new, investigating, contained, resolved, closed)" "unknown status"
run incident status 1 investigating --at 2026-03-02T08:00:00-05:00
is "$errout" "aivet: --at 2026-03-02T08:00:00-05:00 is before the incident's previous status change (entry 1 at 2026-03-02T09:00:00-05:00)" "a status change cannot precede the one before it (here: the opening)"
run incident status 1 investigating --at 2026-03-02T10:00:00-05:00
is "$out" "incident 1: new -> investigating" "new -> investigating"
run incident status 1 investigating
is "$errout" "aivet: incident 1 is already investigating" "same status"
run incident status 1 contained --note "Vendor disabled the shared prefix cache"
is "$out" "incident 1: investigating -> contained" "investigating -> contained"
run incident status 1 new
is "$errout" "aivet: incident 1 is contained: it can move to resolved or back to investigating, not new" "no way back to new"
run incident status 1 resolved
is "$errout" "aivet: incident 1 cannot be resolved without a verification entry: run 'aivet incident verify 1' or record one with 'aivet incident note 1 TEXT --kind verification'" "resolving needs a verification"
run incident show 1 --json
is "$(echo "$out" | json '[.timeline[] | select(.kind == "status-change") | .text + "|" + .details.from + ">" + .details.to] | join(";")')" \
	"Status new -> investigating|new>investigating;Vendor disabled the shared prefix cache|investigating>contained" \
	"each change is a status-change entry"

# ---- notes ----
run incident note 1 "told them" --clock hhs
is "$(echo "$errout" | head -1)" "aivet: --clock needs --kind notification-sent" "--clock only with notification-sent"
run incident note 1 "told them" --kind notification-sent --clock hsh
is "$(echo "$errout" | head -1)" "aivet: --clock: unknown clock 'hsh' (one of hipaa-individuals, hhs, media, vendor-sla, gdpr-sa)" "unknown clock"
run incident note 1 "told them" --kind notification-sent --clock vendor-sla
is "$(echo "$errout" | head -1)" "aivet: --clock vendor-sla: that clock stops when the vendor's notice is recorded (--kind vendor-notice)" "vendor-sla is stopped by the vendor's notice"
run incident note 1 "x" --kind status-change
is "$(echo "$errout" | head -1)" "aivet: --kind status-change: use 'aivet incident status' to change the status" "status changes go through status"
run incident note 1 "x" --kind rumour
is "$errout" "aivet: unknown entry kind 'rumour' (one of detection, vendor-notice, observation, decision, notification-sent, mitigation, verification, status-change)" "unknown kind"
run incident note 1 ""
is "$errout" "aivet: the entry text must not be empty" "empty text"
run incident note 1 "Probes re-run: no leak" --kind verification --at 2026-03-18T16:00:00+01:00
is "$out" "incident 1: entry 5 recorded (verification)" "back-dated verification"
run incident show 1 --json
is "$(echo "$out" | json '.timeline[] | select(.id == 5) | [.at, .at_utc] | join(" ")')" \
	"2026-03-18T16:00:00+01:00 2026-03-18T15:00:00.000Z" "kept with its zone and in UTC"
run incident note 1 "Probes re-run: no leak (run 12)" --kind verification --corrects 5
is "$out" "incident 1: entry 6 recorded (verification)" "a correction is a new entry"
run incident note 1 "x" --corrects 99
is "$errout" "aivet: --corrects 99: incident 1 has no such entry" "correcting an unknown entry"
run incident show 1 --json
is "$(echo "$out" | json '[.timeline[] | select(.id == 5 or .id == 6) | .text + "|" + (.details.corrects // "-" | tostring)] | join(";")')" \
	"Probes re-run: no leak|-;Probes re-run: no leak (run 12)|5" "the corrected entry is unchanged"

# ---- tasks ----
run incident task add 1 "Notify affected patients" --owner privacy-office --due 2026-03-15T17:00:00-04:00
is "$out" "incident 1: task 1 added" "task added"
run incident task add 1 ""
is "$errout" "aivet: the task title must not be empty" "empty task title"
run incident status 1 resolved
is "$out" "incident 1: contained -> resolved" "resolved after a verification"
run incident status 1 closed
is "$errout" "aivet: incident 1 cannot be closed: task 1 'Notify affected patients' is not done; clocks hipaa-individuals (due 2026-05-01T14:00:00.000Z), hhs (due 2026-05-01T14:00:00.000Z) are still running; record the notice with 'aivet incident note 1 TEXT --kind notification-sent --clock hipaa-individuals --clock hhs'" \
	"an open task and every running clock are named in one refusal, with the one note that stops the clocks"
run incident show 1 --json
is "$(echo "$out" | json '.tasks[0] | [.title, .owner, .due_at, (.overdue | tostring), (.done_at | tostring)] | join("|")')" \
	"Notify affected patients|privacy-office|2026-03-15T21:00:00.000Z|true|null" "task fields, overdue"
run incident task done 1 --at 2026-03-14T12:00:00Z
is "$out" "incident 1: task 1 done" "task done"
run incident task done 1
is "$errout" "aivet: task 1 is already done (2026-03-14T12:00:00.000Z)" "done twice"
run incident task done 9
is "$errout" "aivet: unknown task 9" "unknown task"
run incident status 1 closed
is "$errout" "aivet: incident 1 cannot be closed: clocks hipaa-individuals (due 2026-05-01T14:00:00.000Z), hhs (due 2026-05-01T14:00:00.000Z) are still running; record the notice with 'aivet incident note 1 TEXT --kind notification-sent --clock hipaa-individuals --clock hhs'" "running clocks block closing, both named"
run incident note 1 "Letters mailed to 1200 patients; HHS portal filing" --kind notification-sent \
	--clock hipaa-individuals --clock hhs --at 2026-03-19T09:00:00-04:00
is "$out" "incident 1: entry 8 recorded (notification-sent)" "one notice stops two clocks"
run incident show 1 --json
is "$(echo "$out" | json '[.clocks[] | select(.applies) | .id + "=" + .state + "@" + .stopped_at + "#" + (.stopped_by_entry | tostring)] | join(" ")')" \
	"hipaa-individuals=met@2026-03-19T13:00:00.000Z#8 hhs=met@2026-03-19T13:00:00.000Z#8" "both met"
run incident show 1
like "$out" "hhs +met +due 2026-05-01T14:00:00.000Z, notified 2026-03-19T13:00:00.000Z \(entry 8, 43d 01h early\)" "shown with the margin"
run incident status 1 closed --note "Closed after review"
is "$out" "incident 1: resolved -> closed" "closed"
snap=$(db_snapshot)
run incident note 1 "late thought"
is "$errout" "aivet: incident 1 is closed: a closed incident does not change" "a closed incident takes no notes"
run incident status 1 investigating
is "$errout" "aivet: incident 1 is closed: a closed incident does not change" "nor status changes"
run incident task add 1 "more"
is "$errout" "aivet: incident 1 is closed: a closed incident does not change" "nor tasks"
is "$(db_snapshot)" "$snap" "refusals changed nothing"

# ---- the vendor's contractual notice time, from its answers ----
sqlite3 "$AIVET_DB" "INSERT INTO questionnaire (id, qid, version, title, source, sha256, loaded_at)
	VALUES (1, 'llm-inference-isolation', 1, 't', '{}', 'x', 'now');
	INSERT INTO assessment (id, vendor_id, questionnaire_id, status, created_by, created_at)
	VALUES (1, 1, 1, 'draft', 'a', 'now');
	INSERT INTO answer (assessment_id, question_id, value, actor, updated_at)
	VALUES (1, 'exposure_notification_time', '\"24h\"', 'a', 'now');
	UPDATE assessment SET status = 'in_review' WHERE id = 1;
	UPDATE assessment SET status = 'final', reviewer = 'r', approved_at = 'now' WHERE id = 1;"
run incident open acme --title "Second exposure" --discovered 2026-03-16T08:00:00Z --phi no \
	--vendor-discovered 2026-03-14T08:00:00Z --eu-data
is "$out" "incident 2 opened for vendor acme (discovered 2026-03-16T08:00:00.000Z)" "opened with a vendor discovery time"
run incident show 2 --json
is "$(echo "$out" | json '[.vendor_sla.value, .vendor_sla.source, (.vendor_sla.seconds | tostring), .vendor_discovered_at] | join("|")')" \
	"24h|assessment 1, llm-inference-isolation exposure_notification_time|86400|2026-03-14T08:00:00.000Z" "SLA from the answer"
is "$(echo "$out" | json '.clocks | map(.id + "=" + .state) | join(" ")')" \
	"hipaa-individuals=not-applicable hhs=not-applicable media=not-applicable vendor-sla=overdue gdpr-sa=overdue" \
	"no PHI; vendor and GDPR clocks overdue"
is "$(echo "$out" | json '.clocks[3] | [.start, .due] | join(" ")')" \
	"2026-03-14T08:00:00.000Z 2026-03-15T08:00:00.000Z" "vendor clock from the vendor's own discovery"
run incident note 2 "Vendor's notice received by email" --kind vendor-notice --at 2026-03-16T07:30:00Z
run incident note 2 "Notified the supervisory authority" --kind notification-sent --clock gdpr-sa \
	--at 2026-03-19T12:00:00Z
run incident show 2 --json
is "$(echo "$out" | json '[.clocks[3,4] | .state + ":" + (.seconds_left | tostring)] | join(" ")')" \
	"late:-84600 late:-14400" "vendor notice 23.5h late; GDPR notice 4h late"
run incident edit 2 --vendor-sla 5x
is "$(echo "$errout" | head -1)" "aivet: --vendor-sla: bad duration '5x': expected a whole number and a unit, such as 30m, 24h, 5d or 2w" "a bad SLA"
run incident edit 2 --vendor-sla 3d --note "The BAA says three days"
run incident show 2 --json
is "$(echo "$out" | json '[.vendor_sla.value, .vendor_sla.source, .clocks[3].state, .timeline[-1].text] | join("|")')" \
	"3d|set by tester with incident edit|met|The BAA says three days" "the SLA corrected from the contract: met"
run incident edit 2 --eu-data no
run incident show 2 --json
is "$(echo "$out" | json '[.eu_data, .clocks[4].state] | map(tostring) | join(" ")')" "false not-applicable" "--eu-data no: the GDPR clock does not apply"
run incident edit 2 --eu-data yes
run incident show 2 --json
is "$(echo "$out" | json '[.eu_data, .clocks[4].state] | map(tostring) | join(" ")')" "true late" "--eu-data yes: it applies again, with its notice"
run incident list --json
is "$(echo "$out" | json 'map([.id, .status, (.overdue_clocks | join(",")), (.next_due | tostring)] | map(tostring) | join(" ")) | join(";")')" \
	"1 closed  null;2 new  null" "list: nothing overdue once the notices are in"
run incident list --open --json
is "$(echo "$out" | json 'map(.id) | join(",")' 2>/dev/null || echo "$out" | json 'map(.id | tostring) | join(",")')" "2" "--open leaves out closed incidents"

# ---- from a probe finding ----
sqlite3 "$AIVET_DB" "INSERT INTO blob (sha256, size, data) VALUES ('$(printf leak | sha256sum | cut -c1-64)', 4, 'leak');
	INSERT INTO evidence (id, kind, sha256, size, added_by, added_at) VALUES
	(1, 'exchange', '$(printf leak | sha256sum | cut -c1-64)', 4, 'tester', '2026-03-19T10:00:00.000Z');
	INSERT INTO probe_run (id, endpoint_id, status, probes, actor, started_at, finished_at)
	VALUES (3, 1, 'completed', '[\"canary\"]', 'tester', '2026-03-19T10:00:00.000Z', '2026-03-19T10:05:00.000Z');
	INSERT INTO finding (id, run_id, probe, code, severity, message)
	VALUES (4, 3, 'canary', 'cross-tenant-leak', 'critical', 'tenant b saw tenant a''s canary');
	INSERT INTO finding_evidence VALUES (4, 1);"
run incident open other --title t --from-finding 4
is "$errout" "aivet: --from-finding 4 was found on another vendor's endpoint" "finding of another vendor"
run incident open acme --title "Canary leak" --endpoint acme/chat --from-finding 4
is "$out" "incident 3 opened for vendor acme (discovered 2026-03-19T10:05:00.000Z)" "discovered when the run finished"
run incident show 3 --json
is "$(echo "$out" | json '[.endpoint, (.links | map(.object_type + ":" + (.object_id | tostring)) | join(","))] | join(" ")')" \
	"acme/chat evidence:1,finding:4,run:3" "finding, run and evidence linked"
is "$(echo "$out" | json '.timeline[0].text')" \
	"Incident opened from probe finding 4 (canary cross-tenant-leak, critical): tenant b saw tenant a's canary" "the detection entry names the finding"
is "$(echo "$out" | json '.severity')" 4 "a critical finding opens an incident at severity 4"
run incident show 3
like "$out" "
  severity     4 \(critical; 4 = most severe\)
" "incident show labels the severity and says which end is worst"
sqlite3 "$AIVET_DB" "INSERT INTO finding (id, run_id, probe, code, severity, message)
	VALUES (5, 3, 'oversize', 'oversize-accepted', 'high', 'a prompt over the context got HTTP 200'),
	(6, 3, 'errors', 'error-echo', 'low', 'an error echoed the prompt')"
run incident open acme --title "Oversize" --from-finding 5
run incident show 4 --json
is "$(echo "$out" | json '.severity')" 3 "a high finding: severity 3"
run incident open acme --title "Echo" --from-finding 6 --severity 2
run incident show 5 --json
is "$(echo "$out" | json '.severity')" 2 "--severity given wins over the finding's"
run incident open acme --title "Echo again" --from-finding 6
run incident show 6
like "$out" "severity     1 \(low; 4 = most severe\)" "a low finding: severity 1"
run incident link 3 --finding 4
is "$errout" "aivet: finding 4 is already linked to incident 3" "linking twice"
run incident link 3 --run 77
is "$errout" "aivet: unknown run 77" "linking an unknown run"
printf 'Dear customer, ...\n' > "$T/notice.eml"
run incident link 3 --file "$T/notice.eml"
is "$out" "incident 3: linked evidence 2 ($T/notice.eml)" "a file becomes linked evidence"
run incident show 3 --json
is "$(echo "$out" | json '.links[] | select(.object_type == "evidence" and .object_id == 2) | [.original_name, .media_type, .sha256] | join(" ")')" \
	"notice.eml message/rfc822 $(sha256sum < "$T/notice.eml" | cut -c1-64)" "with its hash"

# ---- immutability ----
run audit verify
is "$rc:$errout" "1:aivet: audit chain broken: finding 4 has no audit entry: added behind aivet's back" "the chain is intact, and the rows this test wrote with sqlite3 are named: nothing seals them"
sqlite3 "$AIVET_DB" "UPDATE incident_entry SET text = 'nothing happened' WHERE id = 1" 2>"$T/sqlerr"
like "$(cat "$T/sqlerr")" "incident timeline entries are immutable" "the trigger refuses an edit with sqlite3"
sqlite3 "$AIVET_DB" "DROP TRIGGER incident_entry_no_update;
	UPDATE incident_entry SET at = '2026-03-02T11:00:00-05:00', at_utc = '2026-03-02T16:00:00.000Z' WHERE id = 8"
seq=$(sqlite3 "$AIVET_DB" "SELECT seq FROM audit_log WHERE action = 'incident.entry' AND object_id = 8")
run audit verify
is "$rc" 1 "with the trigger dropped, audit verify fails"
is "$errout" "aivet: audit chain broken: incident entry 8 does not match audit entry $seq: edited after it was recorded" "naming the entry"

done_testing
