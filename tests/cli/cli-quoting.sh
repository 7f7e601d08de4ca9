#!/bin/sh
# cli-quoting.sh: the commands aivet suggests can be pasted into a shell as
# printed: a vendor name with spaces or a quote is one quoted word (one
# quoting helper, base.c's shell_word), and the pasted command does what it
# says.
. "$TESTS_SRCDIR/lib/lib.sh"

"$AIVET" vendor add "Sim Health AI" >/dev/null
"$AIVET" endpoint add "Sim Health AI" --name prod --api openai --url http://127.0.0.1:9/v1 \
	--model m --context 8192 >/dev/null
run probe run "Sim Health AI/prod" --budget-usd 1 --yes
is "$rc" 2 "--budget-usd without prices is refused"
like "$errout" "set them with aivet endpoint edit 'Sim Health AI/prod' --price-in USD --price-out USD" \
	"the suggested command quotes the endpoint"
cmd=$(printf '%s' "$errout" | sed -n "s/.*set them with \(aivet endpoint edit .* --price-out USD\).*/\1/p" |
	sed -e 's/USD/0.5/g' -e "s|^aivet|\"\$AIVET\"|")
(eval "$cmd") >/dev/null 2>&1
is "$?" 0 "pasted, it runs"
is "$("$AIVET" endpoint show "Sim Health AI/prod" --json | jq -c '[.price_in_per_mtok, .price_out_per_mtok]')" \
	"[0.5,0.5]" "and sets the prices"

"$AIVET" vendor add "O'Brien Labs" >/dev/null
"$AIVET" endpoint add "O'Brien Labs" --name prod --api openai --url http://127.0.0.1:9/v1 \
	--model m --context 8192 >/dev/null
run probe run "O'Brien Labs/prod" --budget-usd 1 --yes
like "$errout" "aivet endpoint edit 'O'\\\\''Brien Labs/prod' --price-in" "a quote inside the name is quoted too"

"$AIVET" key generate --no-password >/dev/null
run report "Sim Health AI" --out "$T/my reports/sim"
like "$out" "verify with  aivet verify '$T/my reports/sim'  " "report: the verify command quotes its directory"
done_testing
