#!/bin/sh
# Every man page formats without a warning from groff (-ww) or mandoc
# (-T lint, warnings and worse), and no alternating-font macro (.BR, .IR,
# ...) carries a sentence: words after its arguments alternate fonts too.
. "$(dirname "$0")/lib.sh"

command -v groff >/dev/null || fail "groff is needed to check the man pages (scripts/install-deps)"
command -v mandoc >/dev/null || fail "mandoc is needed to lint the man pages (scripts/install-deps)"
status=0
for page in "$top"/man/*.[0-9]; do
	groff -ww -z -t -man "$page" >"$T/out" 2>&1 || true
	[ ! -s "$T/out" ] || { echo "groff -ww: $(cat "$T/out")"; status=1; }
	mandoc -T lint -W warning "$page" >"$T/out" 2>&1 || true
	[ ! -s "$T/out" ] || { echo "$(cat "$T/out")"; status=1; }
	mandoc -T lint -W style "$page" 2>&1 | grep "unterminated quoted argument" >"$T/out" || true
	[ ! -s "$T/out" ] || { echo "$(cat "$T/out")"; status=1; }
	# Two plain words in a row among a .BR's arguments are prose in alternating fonts.
	awk -v page="${page#"$top"/}" '
	/^\.(BR|RB|IR|RI|BI|IB) / {
		line = substr($0, 5); n = 0; delete arg
		while (length(line)) {
			sub(/^ +/, "", line)
			if (line == "") break
			if (substr(line, 1, 1) == "\"") {
				e = index(substr(line, 2), "\""); if (!e) e = length(line)
				arg[++n] = "\"" substr(line, 2, e - 1) "\""; line = substr(line, e + 2)
			} else {
				e = index(line, " "); if (!e) e = length(line) + 1
				arg[++n] = substr(line, 1, e - 1); line = substr(line, e)
			}
		}
		for (i = 2; i < n; i++)
			if (arg[i] ~ /^[A-Za-z]+[,.;:]?$/ && arg[i + 1] ~ /^[A-Za-z]+[,.;:]?$/) {
				printf "%s:%d: alternating fonts run into prose: %s\n", page, FNR, $0
				bad = 1; break
			}
	}
	END { exit bad }' "$page" || status=1
done
exit $status
