#!/bin/sh
# Bash completion offers the values of --format=, --sort=, --time=, --op= and
# --schema=, and for report's --disk the names the recording on the command
# line had (not the machine's).
. "$(dirname "$0")/lib.sh"
bc=/usr/share/bash-completion/bash_completion
command -v bash >/dev/null && [ -r "$bc" ] || { echo "no bash or bash-completion to test with"; exit 77; }
mkdir "$T/bin"
ln -s "$BLKMAP" "$T/bin/blkmap"
cp "$top/tests/data/vm61-module.dat" "$T/run.dat"

# complete LINE: what completion offers at the end of LINE, sorted, on one line.
complete_line() {
	PATH="$T/bin:$PATH" bash -c '
		. "$1"; . "$2"
		cd "$3"
		COMP_LINE=$4
		read -ra COMP_WORDS <<<"$COMP_LINE"
		[ "${COMP_LINE% }" != "$COMP_LINE" ] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_POINT=${#COMP_LINE}
		_blkmap blkmap "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
		sh "$bc" "$top/scripts/blkmap.bash-completion" "$T" "$1"
}

expect() {
	got=$(complete_line "$1")
	[ "$got" = "$2" ] || fail "completing '$1': '$got', not '$2'"
}
expect "blkmap report --format=" "csv json text "
expect "blkmap report --format " "csv json text "
expect "blkmap report --time=" "abs rel wall "
expect "blkmap report --op=" "discard flush read write "
expect "blkmap report --op=w" "write "
expect "blkmap top --sort=" "bytes dev iops latency name util "
expect "blkmap report --schema=d" "diff disks "
expect "blkmap report --schema=di" "diff disks "
expect "blkmap diff --p" "--pair "
expect "blkmap diff run.dat --disk=be" "beta "
expect "blkmap report --schema=p" "phases "
expect "blkmap report --schema=c" "cgroups conflicts "
expect "blkmap record --events=" "default phases "
expect "blkmap report run.dat --disk=" "alpha beta loop0 loop0p1 loop1 loop1p1 loop2 loop3 loop4 loop5 loop6 loop7 zram0 zram1 "
expect "blkmap report run.dat --disk l" "loop0 loop0p1 loop1 loop1p1 loop2 loop3 loop4 loop5 loop6 loop7 "
expect "blkmap report run.dat --dev=25" "253:0 253:1 254:0 259:0 259:1 "
expect "blkmap report run.dat --dev 254" "254:0 "
expect "blkmap report --disk=be" ""
cp "$T/run.dat" "$T/blkmap.dat"
expect "blkmap report --disk=be" "beta "
echo "# --format=, --time=, --op=, --sort=, --schema= values, and the recording's own names and numbers for --disk and --dev"
