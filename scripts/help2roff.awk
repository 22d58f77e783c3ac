# help2roff.awk - one `numalab ... --help` text as man(7) source, so the
# man pages say what --help says (scripts/manpages.sh runs it).
#   mode=synopsis  the usage lines only (and the lines indented under them)
#   mode=body      the rest: option rows become .TP items, text paragraphs
#   mode=about     an experiment's `run NAME --help`: its title and summary
#   mode=params    an experiment's `run NAME --help`: its own parameter tables
#                  only, the one of every part and each part's own (from=TITLE
#                  prints the table under that title instead: the placement
#                  or the common parameters)

function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	return s
}

function text(s) {
	s = esc(s)
	if (s ~ /^[.']/)
		s = "\\&" s
	print s
}

# "--listen ADDR:PORT" as bold option, italic argument
function term(s,    n, w, i, out) {
	n = split(s, w, " ")
	out = "\\fB" esc(w[1]) "\\fR"
	for (i = 2; i <= n; i++)
		out = out " \\fI" esc(w[i]) "\\fR"
	return out
}

function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

# splits a row at its runs of two or more spaces into f[1..n]
function cols(s, f,    n) {
	s = trim(s)
	n = 0
	while (match(s, /  +/)) {
		f[++n] = substr(s, 1, RSTART - 1)
		s = substr(s, RSTART + RLENGTH)
	}
	f[++n] = s
	return n
}

BEGIN { state = "usage"; para = 0; intable = 0 }

mode == "synopsis" {
	if (state == "usage") {
		if ($0 == "") { state = "done"; next }
		s = $0
		sub(/^usage: */, "", s)
		s = trim(s)
		if (NR > 1)
			print ".br"
		text(s)
	}
	next
}

# the usage block is the synopsis's, not the body's
state == "usage" { if ($0 == "") state = "body"; next }

mode == "body" {
	if ($0 == "") { para = 1; item = 0; next }
	if ($0 ~ /^  +[^ ]/ && $0 !~ /^      /) {
		# a row: an option or a command, then two spaces and its words
		n = cols($0, f)
		print ".TP"
		print term(f[1])
		desc = ""
		for (i = 2; i <= n; i++)
			desc = desc (i > 2 ? " " : "") f[i]
		if (desc != "")
			text(desc)
		item = 1
		next
	}
	if (item && $0 ~ /^      /) { text(trim($0)); next }
	if (para || item) { print ".PP"; para = 0 }
	item = 0
	if ($0 ~ /^[a-z][a-z ]*:$/) {
		# "commands:" and the like head a list
		print ".SS " toupper(substr($0, 1, 1)) esc(substr($0, 2, length($0) - 2))
		next
	}
	text(trim($0))
	next
}

mode == "about" {
	if ($0 == "") exit
	if (!seen++) { print "\\fI" esc($0) "\\fR"; print ".br"; next }
	text($0)
	next
}

mode == "params" {
	if ($0 == "") { intable = 0; next }
	if (!intable) {
		if ($0 ~ /^  name +type +default/) {
			intable = from == "" ? title ~ /^parameters (of|the part) / : title == from
			# a part's own parameters follow under its words
			if (intable && title ~ /^parameters the part /)
				{ print ".PP"; text(title ":") }
		} else if ($0 !~ /^ /)
			title = $0
		next
	}
	if ($0 ~ /^      /) { text(trim($0)); next }
	n = cols($0, f)
	print ".TP"
	line = "\\fB" esc(f[1]) "\\fR=\\fI" esc(f[2]) "\\fR"
	print line
	def = f[3] == "''" ? "empty" : f[3]
	s = "Default " def
	if (f[4] != "-" && f[4] != "see below")
		s = s "; allowed " f[4]
	if (f[5] != "-")
		s = s "; unit: " f[5]
	text(s ".")
	print ".br"
	next
}
