# Arming the kprobe source either completes or undoes itself (Debian's 6.1,
# 6.12 and 5.10, at each probe that kernel gets): a failure at any probe,
# after the ones before it were created and enabled in the recording's
# instance, leaves none of blkmap's probes in
# kprobe_events, and a recording that named the source (--sources=kprobe)
# is refused: exit 1, no file, the command not run; the optional dm_name
# and disk_hidden probes failing cost only that probe
# (scenarios/kprobe-faults.sh).
. "$(dirname "$0")/lib.sh"

on_510=kprobe-faults
for kernel in $lanes; do
	[ -n "$(runs $kernel kprobe-faults)" ] || continue
	out=$T/$kernel
	in_vm $kernel kprobe-faults "$out"
	note "$kernel: $(tr '\n' ';' <"$out/faults.log")"
	while read -r probe rc during after inst sources injected; do
		what="$kernel, a fault at $probe"
		[ "$after" = 0 ] || fail "$what: $after probes left in kprobe_events after the recording"
		[ "$inst" = 0 ] || fail "$what: $inst instances left"
		case $probe in
		none)
			[ "$rc" = 0 ] || fail "$what: record exited $rc"
			[ "$during" -ge 6 ] || fail "$what: only $during probes while recording"
			all=$during
			case $sources in *kprobe*) ;; *) fail "$what: the recording says $sources" ;; esac ;;
		dm_name | disk_hidden | loop_*)
			[ "$rc" = 0 ] || fail "$what: record exited $rc"
			[ "$injected" = yes ] || fail "$what: the fault was not reported"
			[ "$during" = $((all - 1)) ] ||
				fail "$what: $during probes while recording, not the $((all - 1)) others"
			case $sources in *kprobe*) ;; *) fail "$what: the kprobe source was dropped ($sources)" ;; esac ;;
		*)
			[ "$injected" = yes ] || fail "$what: the fault was not reported"
			[ "$rc" = 1 ] || fail "$what: record exited $rc, not 1 (the source was named)"
			[ "$during" = none ] || fail "$what: the command ran, with $during probes"
			[ "$sources" = "sources=?" ] || fail "$what: a recording was written ($sources)" ;;
		esac
	done <"$out/faults.log"
	# A run without a fault, then one a probe.
	[ "$(wc -l <"$out/faults.log")" -eq $((all + 1)) ] ||
		fail "$kernel: $(wc -l <"$out/faults.log") runs, not $((all + 1))"
done
