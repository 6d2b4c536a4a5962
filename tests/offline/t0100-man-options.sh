# Every option that '--help' lists is described in the command's man page.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
BLKMAP=${BLKMAP:-$top/blkmap}
status=0
for cmd in record report; do
	page=$top/man/blkmap-$cmd.1
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
