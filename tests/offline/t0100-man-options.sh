# Every command has a man page, and every option its --help lists is in it.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
BLKMAP=${BLKMAP:-$top/blkmap}
status=0
for cmd in record report statedump recover reset; do
	page=$top/man/blkmap-$cmd.1
	[ -f "$page" ] || { echo "no man page for blkmap $cmd"; status=1; continue; }
	for opt in $("$BLKMAP" "$cmd" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		# roff escapes the dashes: --output is written \-\-output
		escaped=$(echo "$opt" | sed 's/-/\\\\-/g')
		if ! grep -q -- "$escaped" "$page"; then
			echo "blkmap $cmd $opt is not in man/blkmap-$cmd.1"
			status=1
		fi
	done
done
exit $status
