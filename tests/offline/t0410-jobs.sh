# report --jobs: every view, every format, the same bytes (and the same
# warnings) whatever the number of threads, on the fixtures and on a
# recording large enough for many batches on every CPU.
. "$(dirname "$0")/lib.sh"
[ -x "${MKBIG:-}" ] || fail "MKBIG must name bench/mkbig (make check builds it and sets it)"

"$MKBIG" "$top/tests/data/vm61-module.dat" "$T/many.dat" 1000 >/dev/null ||
	fail "mkbig could not build the large recording"
events=$("$BLKMAP" report -f csv "$T/many.dat" 2>/dev/null | wc -l)
[ "$events" -gt 100000 ] || fail "the large recording has $events events, too few for many batches"

for f in "$top"/tests/data/*.dat "$top"/tests/data/v7/*.dat "$T/many.dat"; do
	name=$(basename "$f")
	views='"" --map --disks --latency --top --stack --phases' more_jobs="2 3 8"
	# The sanitized build compares 1 and 3 threads, and reads the large
	# recording by two views: all of it took 4 minutes there on 2 CPUs.
	if [ "${SANITIZED:-}" = 1 ]; then
		more_jobs=3
		[ "$f" != "$T/many.dat" ] || views='"" --disks'
		echo "# $name, sanitized: $views with 1 and 3 jobs only"
	fi
	eval "set -- $views"
	for view; do
		for format in text csv json; do
			"$BLKMAP" report -j1 $view -f $format "$f" >"$T/one" 2>"$T/one.err" ||
				fail "$name $view $format -j1: exit $?"
			for jobs in $more_jobs; do
				"$BLKMAP" report -j$jobs $view -f $format "$f" >"$T/more" 2>"$T/more.err" ||
					fail "$name $view $format -j$jobs: exit $?"
				cmp -s "$T/one" "$T/more" ||
					fail "$name $view $format: -j$jobs differs from -j1: $(diff "$T/one" "$T/more" | head -4)"
				cmp -s "$T/one.err" "$T/more.err" ||
					fail "$name $view $format: -j$jobs warns otherwise than -j1"
			done
		done
	done
	echo "# $name: every view and format the same with 1 and $more_jobs jobs"
done

# The listing's filters are applied by the threads that format it.
for filter in "--disk loop0p1" "--dev 253:1" "--since +0.5 --until 1s" "--disk alpha -f json"; do
	"$BLKMAP" report -j1 $filter "$T/many.dat" >"$T/one" 2>/dev/null || fail "$filter -j1: exit $?"
	"$BLKMAP" report -j3 $filter "$T/many.dat" >"$T/more" 2>/dev/null || fail "$filter -j3: exit $?"
	cmp -s "$T/one" "$T/more" || fail "$filter: -j3 lists otherwise than -j1"
	[ -s "$T/one" ] || fail "$filter: nothing listed"
done
echo "# the listing filtered by disk, number and time: the same with 1 and 3 jobs"

for bad in 0 -1 x 1025; do
	if "$BLKMAP" report -j"$bad" "$T/many.dat" >/dev/null 2>"$T/err"; then
		fail "--jobs=$bad was taken"
	fi
	grep -q -- "--jobs takes a number of threads" "$T/err" || fail "--jobs=$bad: $(cat "$T/err")"
done
echo "# --jobs refuses 0, -1, x and 1025"
