# kernel-choices.awk - make help's lists of the scenario= and tracer= names
# the demo kernel accepts, read from the tables the kernel is built from:
#   awk -f scripts/kernel-choices.awk tracer/format.c kernel/main.c \
#       kernel/scenarios/scenarios.c
# format.c names the unwinders (tracer_unwinder_name), main.c lists the
# tracers and aliases tracer= takes, scenarios.c the scenarios. A table
# whose layout this script no longer reads prints nothing: make test
# compares these lists with the kernel's own (tests/e2e_tests.py).

FILENAME ~ /format\.c$/ && /^[ \t]*\[TRACER_[A-Z_]+\] = "[^"]*",$/ {
	split($0, parts, "\"")
	enum = $1
	gsub(/[][ \t]/, "", enum)
	unwinder_name[enum] = parts[2]
}

FILENAME ~ /main\.c$/ && /^static const enum tracer_unwinder tracers\[\] = \{$/ {
	in_tracers = 1
	next
}
FILENAME ~ /main\.c$/ && in_tracers {
	if ($0 ~ /^};$/) {
		in_tracers = 0
		next
	}
	for (i = 1; i <= NF; i++) {
		enum = $i
		sub(/,$/, "", enum)
		tracers[++tracer_count] = unwinder_name[enum]
	}
}
FILENAME ~ /main\.c$/ && /^[ \t]*\{"[^"]+", TRACER_[A-Z_]+\},$/ {
	split($0, parts, "\"")
	enum = $NF
	sub(/\},$/, "", enum)
	aliases[++alias_count] = parts[2] "\t" "alias of tracer=" unwinder_name[enum]
}

# A tracer= word of main.c's own (tracer=all), from the line usage() prints.
FILENAME ~ /main\.c$/ && /kputs\("  tracer=[a-z]+: / {
	split($0, parts, "\"")
	line = parts[2]
	sub(/^  tracer=/, "", line)
	sub(/\\n$/, "", line)
	colon = index(line, ": ")
	words[++word_count] = substr(line, 1, colon - 1) "\t" substr(line, colon + 2)
}

# The scenarios' table, whose entries may span lines: joined, then split
# at each entry's end.
FILENAME ~ /scenarios\.c$/ && /^const struct scenario scenarios\[\] = \{$/ {
	in_scenarios = 1
	next
}
FILENAME ~ /scenarios\.c$/ && in_scenarios {
	if ($0 ~ /^};$/) {
		in_scenarios = 0
		next
	}
	sub(/^[ \t]+/, " ")
	scenario_text = scenario_text $0
}

END {
	entries = split(scenario_text, entry, /\},/)
	print "Scenarios (ARGS=\"scenario=NAME\"; default panic):"
	for (i = 1; i <= entries; i++) {
		if (split(entry[i], parts, "\"") >= 5)
			printf "  %-22s %s\n", parts[2], parts[4]
	}
	printf "  %-22s %s\n", "call:NAME", "call function NAME (add code with make EXTRA_SRCS=...)"
	print ""
	print "Tracers (ARGS=\"tracer=NAME\"; default auto; UNWINDERS chooses those linked):"
	for (i = 1; i <= tracer_count; i++)
		printf "  %s\n", tracers[i]
	for (i = 1; i <= alias_count; i++) {
		split(aliases[i], parts, "\t")
		printf "  %-22s %s\n", parts[1], parts[2]
	}
	for (i = 1; i <= word_count; i++) {
		split(words[i], parts, "\t")
		printf "  %-22s %s\n", parts[1], parts[2]
	}
}
