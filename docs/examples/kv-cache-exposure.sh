#!/bin/sh
# kv-cache-exposure.sh: a worked incident, as the aivet commands a hospital's
# security team would type. It is modelled on a published disclosure by a
# hosted-model provider: for about two weeks its API returned text from
# other customers' prompts. The model advertised a 1,048,576-token context
# but its prefill/decode-disaggregated deployment held only 681,280 tokens
# of KV cache; an oversized prompt was swapped for a one-token placeholder,
# decode then read stale KV pages left by other requests, and the caller got
# HTTP 200 with another customer's text. Names, dates and counts here are
# illustrative.
#
# Run it against an empty database:
#     AIVET_DB=/tmp/example.db sh docs/examples/kv-cache-exposure.sh
# The re-verification step sends probes to the endpoint. To see it without
# the vendor, stand aivet-sim in for the fixed service first:
#     aivet-sim --port 8089 --context 1048576 --pool 681280 --fault none \
#         --tenants a=key-a,b=key-b &
#     KEY_A=key-a KEY_B=key-b AIVET_DB=/tmp/example.db sh docs/examples/kv-cache-exposure.sh
# (--fault disagg-placeholder instead of --fault none reproduces the fault,
# and the verification then says the failure still reproduces.)
# EXAMPLE_URL points the endpoint elsewhere; SKIP_VERIFY=1 stops before the
# re-verification, leaving the incident contained.
set -eu
aivet() { "${AIVET:-aivet}" "$@"; }
: "${EXAMPLE_URL:=http://127.0.0.1:8089/v1}"

# The vendor and the endpoint our clinical-notes summariser calls, with one
# credential per tenant so probes can test isolation between tenants.
aivet vendor add "Lumen Inference" --criticality 4 --contact security@lumen.example
aivet endpoint add "Lumen Inference" --name summarise --api openai --url "$EXAMPLE_URL" \
	--model lumen-large --context 1048576 \
	--credential a=env:KEY_A --credential b=env:KEY_B

# 4 March, 09:12 in Boston: the vendor's notice arrives. Opening the incident
# records the discovery time with its zone; the exposure window and the
# vendor's own discovery time come from the notice. The contract (a BAA)
# obliges the vendor to notify within 72 hours of its discovery.
aivet incident open "Lumen Inference" --endpoint "Lumen Inference/summarise" \
	--title "Hosted model returned other customers' prompt text (KV-cache admission bug)" \
	--discovered 2026-03-04T09:12:00-05:00 --eu-data no \
	--window-start 2026-02-16T14:00:00Z --window-end 2026-03-02T18:30:00Z \
	--vendor-discovered 2026-03-01T22:10:00Z --vendor-sla 72h \
	--severity 1 --phi unknown
id=1

cat > "${TMPDIR:-/tmp}/lumen-notice.txt" <<'EOF'
Subject: Security notice: response content exposure (LUM-2026-03)

Between 16 February 14:00 UTC and 2 March 18:30 UTC, a defect in how our
serving stack admitted prompts longer than the KV-cache pool allowed some
responses to contain fragments of other customers' prompts. We identified
the defect on 1 March at 22:10 UTC and deployed a fix on 2 March at 18:30
UTC. Requests affected: prompts above 681,280 tokens and requests decoded
after them on the same replica. Logs of affected request ids are available
on request.
EOF
aivet incident note $id "Security notice LUM-2026-03 received from Lumen by email" \
	--kind vendor-notice --at 2026-03-04T09:12:00-05:00
aivet incident link $id --file "${TMPDIR:-/tmp}/lumen-notice.txt"
aivet incident status $id investigating --at 2026-03-04T09:40:00-05:00

# Containment: traffic moves to the on-premises fallback until verified.
aivet incident note $id "Summariser traffic routed to the on-premises fallback model" \
	--kind mitigation --at 2026-03-04T10:05:00-05:00
aivet incident status $id contained --at 2026-03-04T10:05:00-05:00
aivet incident task add $id "Pull gateway logs for every Lumen request in the window" \
	--owner sec-eng --due 2026-03-06T17:00:00-05:00
aivet incident task add $id "Match affected request ids to patients" \
	--owner privacy-office --due 2026-03-13T17:00:00-05:00
aivet incident task add $id "Mail notices to affected patients" \
	--owner privacy-office --due 2026-04-24T17:00:00-04:00

# What the logs showed: our prompts carried PHI, and the vendor's request ids
# matched 1,840 patients, at most 1,210 of them in Massachusetts.
aivet incident task done 1 --at 2026-03-06T15:30:00-05:00
aivet incident note $id "Gateway logs: 23,118 requests in the window, 412 matching the vendor's affected ids" \
	--kind observation --at 2026-03-06T15:30:00-05:00
aivet incident task done 2 --at 2026-03-12T11:00:00-05:00
aivet incident edit $id --phi yes --individuals 1840 --state-residents 1210 \
	--note "Affected: 1,840 patients, 1,210 resident in Massachusetts; PHI in the prompts" \
	--at 2026-03-12T11:00:00-05:00

# Notices, each stopping its clock.
aivet incident note $id "Notices mailed to 1,840 patients (first-class mail)" \
	--kind notification-sent --clock hipaa-individuals --at 2026-04-09T10:00:00-04:00
aivet incident note $id "Breach report filed on the HHS portal" \
	--kind notification-sent --clock hhs --at 2026-04-09T14:20:00-04:00
aivet incident note $id "Press release to Massachusetts media outlets" \
	--kind notification-sent --clock media --at 2026-04-10T09:00:00-04:00
aivet incident task done 3 --at 2026-04-09T10:00:00-04:00

if [ -n "${SKIP_VERIFY:-}" ]; then
	aivet incident show $id
	exit 0
fi

# After the vendor's fix: re-run the canary and oversize probes against the
# endpoint; the run is linked and a verification entry records the outcome.
aivet incident verify $id
aivet incident status $id resolved
aivet incident status $id closed --note "Closed: notices sent on time, fix verified"
aivet incident show $id
