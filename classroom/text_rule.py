"""The honesty gate's first step: what a student's part may hold as text, checked before
anything is compiled (classroom/gate.py calls text_refused(); chapter 08's whole file goes through
contest_text_refused()). The gate reads the compiler's view of one build, so a part may not make
its code depend on how, where or when it is compiled, nor bring in other files. TEXT_RULES is the
rule as the students' ASSIGNMENT.md states it (classroom/starter.py).

Python 3, standard library only.
"""
import re

# What a part may hold as text, checked before anything is compiled (text_refused()): the gate
# reads the compiler's view of one build, so a part may not make its code depend on how, where or
# when it is compiled, nor bring in other files. Preprocessor directives: only these.
DIRECTIVES_ALLOWED = [["define"], ["undef"], ["pragma", "omp"], ["pragma", "unroll"],
                      ["pragma", "GCC", "unroll"]]
# Names that tell a part how, where or when it is compiled, or run the preprocessor from inside
# code (a part's code must be the same program in every build: the gate's, the real one, the
# sanitizers', on any path), and assembly (the assembler reads files too: .incbin).
SAME = ": a part's code must be the same program in every build"
TEXT_REFUSED = [
    (r"_Pragma|__pragma", "a pragma written as an operator" + SAME),
    (r"__has_include(_next)?|__has_(builtin|attribute|cpp_attribute|feature|extension)",
     "a test of what the compiler has" + SAME),
    (r"__FILE__|__BASE_FILE__|__FILE_NAME__|__builtin_FILE|__INCLUDE_LEVEL__",
     "where it is compiled (the file's path)" + SAME),
    (r"__DATE__|__TIME__|__TIMESTAMP__|__COUNTER__", "when it is compiled" + SAME),
    (r"__OPTIMIZE\w*|__NO_INLINE__|__SANITIZE_\w*|__CUDACC_DEBUG__|__CUDA_ARCH\w*|NDEBUG|"
     r"__builtin_constant_p|__builtin_(dynamic_)?object_size",
     "how it is compiled (optimised or not, sanitizers, debug, architecture)" + SAME),
    (r"asm|__asm__|__asm", "assembly: a part is C (CUDA C), which the check reads; the "
                           "assembler reads files of its own (.incbin)"),
    (r"__builtin_(return_address|frame_address|extract_return_addr)",
     "the addresses of the code that called it: a way into the libraries' code, around the "
     "check of what a part calls (review 0412h)"),
]
# The rule as the students' ASSIGNMENT.md states it (classroom/starter.py).
TEXT_RULES = """What a part may hold as text is checked first, before anything is compiled: no
preprocessor directive but `#define`, `#undef`, `#pragma omp` and `#pragma unroll` (no
`#include`, `#if`, `#ifdef`, `#line` or other `#pragma`), no `##` and no `_Pragma`, no assembly
(`asm`), no `__builtin_return_address` or `__builtin_frame_address`, and none of the names
that tell a part where, when or how it is compiled (`__FILE__`,
`__has_include`, `__DATE__`, `__TIME__`, `__COUNTER__`, `__OPTIMIZE__`, `__SANITIZE_ADDRESS__`,
`__CUDA_ARCH__`, `NDEBUG`, `__builtin_constant_p`): your part must be the same program in every
build the grader makes of it (the check's, the build, the sanitizers'). A part refused there is
not built; the refusal names the line and the rule."""
TRIGRAPHS = {"=": "#", "(": "[", ")": "]", "/": "\\", "'": "^", "<": "{", ">": "}", "!": "|",
             "-": "~"}
# gcc (libcpp's _cpp_clean_line) ends a line at "\n", "\r\n" and a lone "\r"; a backslash
# splices lines with blanks (space, tab, form feed, vertical tab, NUL) between it and the newline.
# "\f" and "\v" do not end a line. lex() reads lines as gcc does, so that what follows
# `#define X 1<CR>` or `// comment<CR>` is a directive for it too (the second gaming review).
LINE_ENDS = re.compile(r"\r\n?")
SPLICE = re.compile(r"[ \t\f\v\0]*\n")
RAW_STRING = re.compile(r'(?:u8|u|U|L)?R"([^ ()\\\t\n]{0,16})\(')
IDENT = re.compile(r"[A-Za-z_$][\w$]*")
NUMBER = re.compile(r"\.?\d(?:[eEpP][+-]|[\w.']|\\u[0-9a-fA-F]{4})*")


def lex(text):
    """The tokens of a part's text as the preprocessor reads them (trigraphs, splices, comments
    and literals done): [(kind, text, line, first on its logical line)], kind one of 'id',
    'literal', '#', '##' or 'punct'; line is the physical line (1-based) the token starts on,
    counted as gcc does (a lone "\r" ends a line)."""
    text = LINE_ENDS.sub("\n", text)
    chars, where, line, i = [], [], 1, 0
    while i < len(text):
        c, step = text[i], 1
        if text.startswith("??", i) and text[i + 2:i + 3] in TRIGRAPHS and text[i + 2:i + 3]:
            c, step = TRIGRAPHS[text[i + 2]], 3
        if c == "\\":
            m = SPLICE.match(text, i + step)
            if m:
                line, i = line + 1, m.end()
                continue
        chars.append(c)
        where.append(line)
        line += c == "\n"
        i += step
    s, tokens, first, i = "".join(chars), [], True, 0
    while i < len(s):
        c = s[i]
        if c == "\n":
            first, i = True, i + 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if s.startswith("/*", i):
            end = s.find("*/", i + 2)
            i = len(s) if end < 0 else end + 2
            continue
        if s.startswith("//", i):
            end = s.find("\n", i)
            i = len(s) if end < 0 else end
            continue
        m = RAW_STRING.match(s, i)
        kind, end = None, None
        if m:
            close = s.find(")" + m.group(1) + '"', m.end())
            kind, end = "literal", len(s) if close < 0 else close + len(m.group(1)) + 2
        elif IDENT.match(s, i) and not re.match(r"(u8|u|U|L)['\"]", s[i:i + 3]):
            kind, end = "id", IDENT.match(s, i).end()
        elif re.match(r"(u8|u|U|L)?['\"]", s[i:i + 3]):
            j = s.index("'" if "'" in s[i:i + 3].split('"')[0] else '"', i)
            quote, j = s[j], j + 1
            while j < len(s) and s[j] not in (quote, "\n"):
                j += 2 if s[j] == "\\" else 1
            # an unterminated literal ends at its line's end, which still ends the line (gcc)
            kind, end = "literal", j + 1 if j < len(s) and s[j] == quote else j
        elif NUMBER.match(s, i):
            kind, end = "punct", NUMBER.match(s, i).end()
        elif s.startswith(("##", "%:%:"), i):
            kind, end = "##", i + (2 if s[i] == "#" else 4)
        elif s.startswith(("#", "%:"), i):
            kind, end = "#", i + (1 if s[i] == "#" else 2)
        else:
            kind, end = "punct", i + 1
        tokens.append((kind, s[i:end], where[i], first))
        first, i = False, end
    return tokens


def text_refused(body):
    """Why the text of a part is refused before it is compiled: [(line in the part (1-based),
    why)]. A part may hold no preprocessor directive but #define, #undef, #pragma omp and
    #pragma unroll; no `##`; none of the names of TEXT_REFUSED."""
    out, tokens, define_ends = [], lex(body), -1
    for k, (kind, text, line, first) in enumerate(tokens):
        if kind == "#" and first:
            words = []
            for t in tokens[k + 1:]:
                if t[3]:
                    break
                words.append(t[1])
            if words[:1] in (["define"], ["undef"]):
                define_ends = k + len(words)
            if not any(words[:len(a)] == a for a in DIRECTIVES_ALLOWED):
                shown = "#" + " ".join(words[:2])
                out.append((line, f"`{shown}`: a part may hold no preprocessor directive but "
                                  f"#define, #undef, #pragma omp and #pragma unroll (an #include, "
                                  f"#if or other #pragma could make the build differ from what "
                                  f"the check read)"))
        elif kind == "#" and k > define_ends:
            out.append((line, "a `#` outside a directive"))
        elif kind == "##":
            out.append((line, "`##`: a part may not paste names together"))
        elif kind == "id":
            for pattern, why in TEXT_REFUSED:
                if re.fullmatch(pattern, text):
                    out.append((line, f"`{text}`: {why}"))
    return out


def contest_text_refused(text, reference):
    """The text rule for chapter 08's whole file, before it is compiled: [(line, why)]. A line
    that is not one of the course's file may not include a file (#include, #line), nor use a
    name of TEXT_REFUSED but __CUDA_ARCH__ and asm (a contestant tunes for an architecture, in
    PTX too)."""
    known = {l.strip() for l in reference.split("\n")}
    lines = text.split("\n")
    out = []
    for line, why in text_refused(text):
        if lines[line - 1].strip() in known or re.match(r"`(asm|__asm__|__asm|__CUDA_ARCH\w*)`",
                                                         why):
            continue
        if why.startswith("`#") and not re.match(r"`#(include|include_next|embed|import|line)\b",
                                                 why):
            continue
        out.append((line, why.replace("a part may hold no preprocessor directive but #define, "
                                      "#undef, #pragma omp and #pragma unroll",
                                      "a line the course's file does not have may include no "
                                      "file")))
    return out
