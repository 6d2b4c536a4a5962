# The module in Debian's kernels (6.1 and 6.12): a detach writes no removal
# for the disks still present; unloading it clears the instance it recorded
# into (the kernel's doing, as the module's header says) and no other.
. "$(dirname "$0")/lib.sh"

for kernel in default 6.12; do
	out=$T/$kernel
	"$top/tests/vm/run" --kernel=$kernel "$top/tests/vm/scenarios/module-detach.sh" "$out" ||
		{ cat "$out/console.log"; fail "$kernel: scenario failed"; }
	grep -q 'blkmap_dev: op=1 .*name=gamma ' "$out/attached.trace" ||
		fail "$kernel: the add of gamma was not recorded: $(cat "$out/attached.trace")"
	if grep 'blkmap_dev: op=2 ' "$out/attached.trace"; then
		fail "$kernel: the detach wrote removals of disks that are still there"
	fi
	[ "$(cat "$out/rmmod.status")" = 0 ] || fail "$kernel: rmmod failed after the detach"
	grep -q other-instance-data "$out/other.after" ||
		fail "$kernel: unloading the module cleared an unrelated instance"
	if grep -q rec-after-detach "$out/rec.after"; then
		fail "$kernel: the instance the event was enabled in kept its data: update the module's header"
	fi
	note "$kernel: detach wrote no removal; unload cleared only the instance it had recorded into"
done
