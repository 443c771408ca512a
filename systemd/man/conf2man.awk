# Builds nvmond.conf(5) from its template and the annotated sample configuration,
# so the manual lists exactly the keys, defaults and descriptions of
# systemd/nvmond.conf.
# Usage: awk -f conf2man.awk nvmond.conf.5.in nvmond.conf > nvmond.conf.5
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	gsub(/°/, "\\(de", s)
	gsub(/…/, "...", s)
	gsub(/—/, "\\(em", s)
	sub(/^[.']/, "\\\\\\&&", s)
	return s
}
# A comment block describes the keys right after it (printed below them), or
# stands alone as a paragraph when no key follows.
function flush_desc() {
	if (ndesc && !keys)
		body = body ".PP\n"
	nf = 0
	for (i = 1; i <= ndesc; i++) {
		# indented lines (a list in the comment) keep their lines
		if (desc[i] ~ /^  / && !nf) { body = body ".nf\n"; nf = 1 }
		if (desc[i] !~ /^  / && nf) { body = body ".fi\n"; nf = 0 }
		body = body esc(desc[i]) "\n"
	}
	if (nf)
		body = body ".fi\n"
	ndesc = 0
	keys = 0
}
# the template: everything before and after the marker comment line
FNR == NR {
	if ($0 == ".\\\" -- the keys of systemd/nvmond.conf go here --") { tail = 1; next }
	if (tail) after = after $0 "\n"; else before = before $0 "\n"
	next
}
# the sample configuration
!started && !/^(#)?\[/ { next }
# A commented-out section with a name ([sink "NAME"], [export "NAME"]) is an example:
# shown as it would be written, with its comments, up to the next blank line.
example && /^#/ {
	line = $0
	if (line !~ /^# /)
		sub(/^#/, "", line)
	body = body esc(line) "\n"
	next
}
example {
	body = body ".EE\n"
	example = 0
}
/^#\[[a-z]+ "/ && !/^#\[device / {
	flush_desc()
	body = body ".PP\n.EX\n"
	example = 1
	sub(/^#/, "")
	body = body esc($0) "\n"
	next
}
# "# ---- Title ----": a heading of its own (the named sections' description).
/^# -+ .* -+$/ {
	if (keys)
		flush_desc()
	ndesc = 0
	keys = 0
	title = $0
	sub(/^# -+ /, "", title)
	sub(/ -+$/, "", title)
	title = esc(title)
	gsub(/"/, "\\(dq", title)
	body = body ".SS \"" title "\"\n"
	next
}
/^\[[a-z]+\]$/ || /^#\[device / {
	started = 1
	held = ""
	if (keys)
		flush_desc()
	else
		for (i = 1; i <= ndesc; i++)
			held = held esc(desc[i]) "\n"
	ndesc = 0
	keys = 0
	name = $0
	sub(/^#/, "", name)
	gsub(/"/, "\\(dq", name)
	body = body ".SS \"" name "\"\n" (held != "" ? ".PP\n" held : "")
	next
}
/^#[a-z][a-z0-9_]* = ?/ || /^#[a-z][a-z0-9_]* =$/ {
	key = $0
	sub(/^#/, "", key)
	k = key; sub(/ =.*/, "", k)
	v = key; sub(/^[a-z][a-z0-9_]* = ?/, "", v)
	body = body (keys ? ".TQ\n" : ".TP\n") "\\fB" k "\\fR = " (v == "" ? "(empty)" : "\\fI" esc(v) "\\fR") "\n"
	keys++
	next
}
/^#/ {
	if (keys) flush_desc()
	line = $0
	sub(/^# ?/, "", line)
	if (line == "")
		next
	desc[++ndesc] = line
	next
}
/^$/ { flush_desc(); next }
END {
	if (example)
		body = body ".EE\n"
	flush_desc()
	printf "%s%s%s", before, body, after
}
