# statedump lists what /sys/dev/block has, each device under its name.
. "$(dirname "$0")/lib.sh"

[ -d /sys/dev/block ] || { echo "no /sys/dev/block"; exit 77; }
for link in /sys/dev/block/*:*; do
	echo "$(basename "$link"),$(basename "$(readlink "$link")")"
done | sort >"$T/sysfs"
"$BLKMAP" statedump -f csv >"$T/csv" || fail "statedump failed"
[ "$(head -n 1 "$T/csv")" = "name,dev,kind,parent,diskseq,sectors,dm" ] || fail "CSV header"
tail -n +2 "$T/csv" | awk -F, '{print $2 "," $1}' | sort >"$T/ours"
diff "$T/sysfs" "$T/ours" || fail "statedump and /sys/dev/block differ"
echo "# $(wc -l <"$T/ours") devices, as in /sys/dev/block"
if command -v python3 >/dev/null; then
	"$BLKMAP" statedump -f json | python3 -c 'import json, sys
n = sum(1 for line in sys.stdin if json.loads(line)["dev"])
print("#", n, "JSON objects")'
fi
