#!/usr/bin/env python3
"""Compare the kernels of two builds, by mangled name: did moving code change what it compiles to?

    docs/experiments/compare_kernels.py BEFORE_DIR AFTER_DIR

Each folder holds the outputs of `nvcc -ptx` (no -lineinfo) and `nvcc -cubin` of the files that
define kernels, named *.ptx and *.cubin (docs/experiments/10_compaction.md has the commands). Every
kernel of BEFORE is looked up in every file of AFTER of the same kind and compared:
  PTX    each .entry body as text, after renumbering what PTX numbers through the whole file
         ($L__BB5_83 and __local_depot5 carry the function's index in its file; "// callseq 10"
         is a file-wide counter);
  cubin  each kernel's .text (its SASS), .nv.constant0, .nv.shared and .nv.info sections, the
         symbol indices in .nv.info (parameter bank, externs such as vprintf) replaced by the
         symbols' names. Line tables are not compared: they change when code moves.
Prints one line per kernel and section, and exits 1 if anything differs or is missing.
"""
import os
import re
import struct
import sys


def ptx_functions(path):
    """{name: normalised body} of every .entry in a PTX file."""
    text = open(path).read()
    out = {}
    for m in re.finditer(r'^(?:\.visible |\.weak )?\.entry\s+([A-Za-z_$][\w$]*)\(', text, re.M):
        end = text.find('\n}', text.find('\n{', m.start()))
        body = text[m.start():end + 2]
        body = re.sub(r'\$L__BB\d+_', '$L__BB_', body)
        body = re.sub(r'__local_depot\d+', '__local_depot', body)
        body = re.sub(r'callseq \d+', 'callseq', body)
        out[m.group(1)] = body
    return out


def cubin_sections(path):
    """{section name: bytes} of each kernel's code, constant, shared and info sections."""
    data = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    secs = [struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize) for i in range(shnum)]

    def cstr(base, off):
        return data[base + off:data.index(b'\0', base + off)]
    names = [cstr(secs[shstrndx][4], s[0]).decode() for s in secs]
    symtab = next(s for s in secs if s[1] == 2)
    strtab = secs[names.index('.strtab')][4]

    def symbol(i):
        return cstr(strtab, struct.unpack_from('<I', data, symtab[4] + 24 * i)[0])

    def info(d):  # EIATTR records: format byte, attribute byte, then a value or a sized body
        i, out = 0, b''
        while i < len(d):
            fmt, attr = d[i], d[i + 1]
            if fmt == 4:
                size, = struct.unpack_from('<H', d, i + 2)
                body = d[i + 4:i + 4 + size]
                if attr == 0x0a:  # EIATTR_PARAM_CBANK: symbol, offset, size
                    body = symbol(struct.unpack_from('<I', body)[0]) + b'|' + body[4:]
                elif attr == 0x0f:  # EIATTR_EXTERNS: symbols
                    body = b','.join(symbol(struct.unpack_from('<I', body, 4 * k)[0])
                                     for k in range(size // 4))
                out += bytes([fmt, attr]) + body + b'\n'
                i += 4 + size
            else:
                out += d[i:i + 4] + b'\n'
                i += 4
        return out
    out = {}
    for (_, typ, _, _, off, size), name in zip(secs, names):
        if re.match(r'\.(text|nv\.constant0|nv\.shared|nv\.info)\.', name):
            body = b'NOBITS %d' % size if typ == 8 else data[off:off + size]
            out[name] = info(body) if name.startswith('.nv.info.') else body
    return out


def load(folder, ext, reader):
    return {f: reader(os.path.join(folder, f)) for f in sorted(os.listdir(folder)) if f.endswith(ext)}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = sys.argv[1:]
    bad = same = 0
    for ext, reader in (('.ptx', ptx_functions), ('.cubin', cubin_sections)):
        old, new = load(before, ext, reader), load(after, ext, reader)
        for f, items in old.items():
            for name, body in items.items():
                found = [(g, new[g][name]) for g in new if name in new[g]]
                if not found:
                    print('MISSING  %s: %s' % (f, name[:110]))
                    bad += 1
                for g, other in found:
                    ok = other == body
                    same += ok
                    bad += not ok
                    print('%s %s -> %s: %s' % ('same     ' if ok else 'DIFFERENT', f, g, name[:90]))
    print('%d identical, %d different or missing' % (same, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
