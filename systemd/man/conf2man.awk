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
	for (i = 1; i <= ndesc; i++)
		body = body esc(desc[i]) "\n"
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
	desc[++ndesc] = line
	next
}
/^$/ { flush_desc(); next }
END {
	flush_desc()
	printf "%s%s%s", before, body, after
}
