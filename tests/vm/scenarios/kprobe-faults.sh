# Guest scenario (busybox sh): arming the kprobe source fails at each of its
# probes in turn (BLKMAP_FAULT_KPROBE), after the ones before it were made
# and enabled. /out/faults.log, a line a run: "PROBE RC DURING AFTER
# INSTANCES SOURCES INJECTED": blkmap's exit status, blkmap's probes in
# kprobe_events while it records and after it stopped, blkmap's instances
# left, the sources the recording says it had, whether the fault was
# reported. PROBE "none": no fault.
. /scenario-lib.sh
T=/sys/kernel/tracing
[ -e $T/kprobe_events ] || premise "no kprobe_events"
modprobe dm_mod 2>/dev/null	# the dm_name probe exists only with dm_mod
# The probes this kernel gets (bdev_add or, before 5.12, disk_add and
# part_add; dm_name where dm_mod has BTF): those of a run without a fault.
blkmap record --sources=kprobe -o /tmp/f.dat -- \
	sh -c "sed -n 's|^[pr][0-9]*:blkmap_[0-9]*/\([^ ]*\) .*|\1|p' $T/kprobe_events >/tmp/probes" \
	2>/tmp/err || { cat /tmp/err; premise "the kprobe source does not arm"; }
[ ! -e /sys/kernel/btf/dm_mod ] || grep -qx dm_name /tmp/probes ||
	premise "dm_mod has BTF, yet no dm_name probe to fail"
: >/out/faults.log
for probe in none $(cat /tmp/probes); do
	step "a fault at $probe"
	BLKMAP_FAULT_KPROBE=$probe blkmap record --sources=kprobe -o /tmp/f.dat -- \
		sh -c "grep -c ':blkmap_' $T/kprobe_events >/tmp/during; true" 2>/tmp/err
	rc=$?
	during=$(cat /tmp/during 2>/dev/null || echo none)
	after=$(grep -c ':blkmap_' $T/kprobe_events)
	inst=$(ls $T/instances | grep -c '^blkmap')
	sources=$(blkmap report /tmp/f.dat 2>/dev/null | grep -m1 -o 'sources=[^ ]*')
	injected=no
	! grep -q "BLKMAP_FAULT_KPROBE" /tmp/err || injected=yes
	echo "$probe $rc $during $after $inst ${sources:-sources=?} $injected" >>/out/faults.log
	{ echo "== $probe"; cat /tmp/err; } >>/out/faults.err
	rm -f /tmp/f.dat /tmp/during
done
