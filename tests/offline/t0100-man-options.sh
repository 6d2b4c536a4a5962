# Every command blkmap --help lists has a man page and bash completion, and
# every option its --help lists is in the man page.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
BLKMAP=${BLKMAP:-$top/blkmap}
status=0
commands=$("$BLKMAP" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ "$(echo $commands | wc -w)" -ge 6 ] || { echo "blkmap --help lists commands '$commands'"; exit 1; }
for cmd in $commands; do
	grep -q "local commands=.*\b$cmd\b" "$top/scripts/blkmap.bash-completion" ||
		{ echo "blkmap $cmd is not in the bash completion's commands"; status=1; }
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
