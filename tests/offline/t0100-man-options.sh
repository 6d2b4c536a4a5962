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
# Every map source the recorder accepts is named in the --sources help.
known=$("$BLKMAP" record --sources=none 2>&1 | sed -n 's/.*(known: \(.*\)).*/\1/p' | tr -d ',')
[ -n "$known" ] || { echo "record --sources=none does not list the known sources"; status=1; }
help=$("$BLKMAP" record --help | sed -n '/--sources/,/--help/p' | tr -s ' \n' ' ')
for src in $known; do
	case "$help" in
	*"$src"*) ;;
	*) echo "record --help does not name the source '$src': $help"; status=1 ;;
	esac
done
exit $status
