# A signal at any moment (starting, arming, recording, writing) ends with a
# complete, readable file or none at all, and nothing of blkmap's left; once
# the recorder has said it records, the file must be complete.
. "$(dirname "$0")/lib.sh"
need_root

i=0 complete=0 none=0 recording=0
while [ $i -lt 24 ]; do
	sig=$(echo "INT TERM HUP" | cut -d' ' -f$((i % 3 + 1)))
	# Some right at the start, some while arming, most while recording.
	delay=$(awk -v i=$i 'BEGIN { srand(i); printf "%.3f", (i % 4 ? rand() * 0.4 : rand() * 0.01) }')
	rm -f "$T/rec.dat"
	"$BLKMAP" record -o "$T/rec.dat" -- sleep 0.3 2>"$T/err" &
	pid=$!
	sleep "$delay"
	said=0
	grep -q 'recording into' "$T/err" && said=1
	kill -s "$sig" $pid 2>/dev/null || true
	set +e
	wait $pid
	status=$?
	set -e
	what="SIG$sig after ${delay}s ($([ $said = 1 ] && echo recording || echo starting))"
	case $status in
	0|129|130|143) ;;
	1) [ $said = 0 ] || fail "$what: exit 1: $(cat "$T/err")" ;;
	*) fail "$what: exit $status" ;;
	esac
	if [ -e "$T/rec.dat" ]; then
		"$BLKMAP" report "$T/rec.dat" >"$T/rec.txt" || fail "$what: the file does not read"
		grep -q 'blkmap:record-end' "$T/rec.txt" || fail "$what: the file has no end marker"
		complete=$((complete + 1))
	else
		[ $said = 0 ] || fail "$what: no file: $(cat "$T/err")"
		none=$((none + 1))
	fi
	recording=$((recording + said))
	assert_clean
	i=$((i + 1))
done
[ $recording -ge 8 ] || fail "only $recording of 24 signals came while recording: the test's premise"
note "$complete complete files ($recording signalled while recording), $none runs ended before recording"
