#!/bin/sh
# run-qemu.sh [--banner] QEMU-COMMAND... - make run's and make debug's QEMU:
# shows the console from the kernel's first line on, the firmware's banner
# before it hidden (--banner, make run BANNER=1, shows it), and exits with
# QEMU's status, which the kernel sets (kernel/poweroff.h).

# The kernel's first line (kernel/main.c).
KERNEL_FIRST_LINE="backtrace demo kernel on hart "
# More lines than any firmware banner: without the kernel's line by then,
# the console is shown whole.
BANNER_MAX_LINES=200

show_banner=no
if [ "$1" = --banner ]; then
	show_banner=yes
	shift
fi

# Copies stdin to stdout from the kernel's first line on; read takes a byte
# at a time from a pipe, so each line shows as soon as QEMU prints it.
hide_banner() {
	held=
	lines=0
	while IFS= read -r line; do
		case $line in
		"$KERNEL_FIRST_LINE"*)
			printf '%s\n' "$line"
			exec cat
			;;
		esac
		held="$held$line
"
		lines=$((lines + 1))
		if [ "$lines" -gt "$BANNER_MAX_LINES" ]; then
			printf '%s' "$held"
			exec cat
		fi
	done
	printf '%s%s' "$held" "$line"
}

if [ "$show_banner" = yes ]; then
	exec "$@"
fi
# QEMU's status crosses the pipe on fd 3 (POSIX sh has no pipefail); the
# console goes to the original stdout through fd 4.
exec 4>&1
status=$({ { "$@" 3>&- 4>&-; echo $? >&3; } | hide_banner >&4 3>&-; } 3>&1)
exit "$status"
