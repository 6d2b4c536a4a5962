# A signal at any moment (starting, arming, recording, writing) ends with a
# complete, readable file or none at all, and nothing of blkmap's left.
. "$(dirname "$0")/lib.sh"
need_root

i=0 complete=0 none=0
while [ $i -lt 24 ]; do
	sig=$(echo "INT TERM HUP" | cut -d' ' -f$((i % 3 + 1)))
	# Some right at the start, some while arming, most while recording.
	delay=$(awk -v i=$i 'BEGIN { srand(i); printf "%.3f", (i % 4 ? rand() * 0.4 : rand() * 0.01) }')
	rm -f "$T/rec.dat"
	"$BLKMAP" record -q -o "$T/rec.dat" -- sleep 0.3 &
	pid=$!
	sleep "$delay"
	kill -s "$sig" $pid 2>/dev/null || true
	set +e
	wait $pid
	status=$?
	set -e
	case $status in
	0|1|129|130|143) ;;
	*) fail "SIG$sig after ${delay}s: exit $status" ;;
	esac
	if [ -e "$T/rec.dat" ]; then
		"$BLKMAP" report "$T/rec.dat" >/dev/null ||
			fail "SIG$sig after ${delay}s: the file does not read"
		complete=$((complete + 1))
	else
		none=$((none + 1))
	fi
	assert_clean
	[ -z "$(ls /run/blkmap 2>/dev/null)" ] || fail "SIG$sig after ${delay}s: registry left"
	i=$((i + 1))
done
note "$complete complete files, $none runs ended before recording"
