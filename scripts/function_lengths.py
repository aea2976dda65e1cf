#!/usr/bin/env python3
"""Lists the functions longer than a limit in C++ files (a brace-matching heuristic).

    scripts/function_lengths.py [--max N] FILE...     # N: 60 by default

A function is a top-level brace block (at any namespace or class depth) whose opening line looks
like a definition: a parameter list before the brace, not a class, struct, enum, namespace or an
initializer. Its length counts from the line of its name to its closing brace. Prints
"FILE:LINE: NAME: N lines" for each one over the limit and exits 1 when there is any, so that a
script or CI can use it; strings, characters and comments are skipped when counting braces.
"""
import argparse
import re
import sys

NOT_FUNCTION = re.compile(r'\b(class|struct|enum|namespace|union)\b[^()]*$')
NAME = re.compile(r'([A-Za-z_~][A-Za-z_0-9:<>~]*(?:operator\S+)?)\s*\(')


def code_only(text):
    """The text with comments, strings and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(')' + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(' ' * (min(j + 1, n) - i))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def long_functions(path, limit):
    code = code_only(open(path, encoding='utf-8', errors='replace').read())
    lines = code.split('\n')
    found = []
    stack = []  # per open brace: (is_function, start_line, name)
    statement = ''  # code since the last ; { or } at this depth, to see what a brace opens
    statement_line = 0
    for number, line in enumerate(lines, 1):
        for c in line:
            if c == '{':
                head = ' '.join(statement.split())
                inside_function = any(f for f, _, _ in stack)
                m = None if inside_function else list(NAME.finditer(head))
                is_function = bool(m) and not NOT_FUNCTION.search(head) and ')' in head \
                    and not head.rstrip().endswith('=') and not re.search(r'=\s*$', head)
                name = m[0].group(1) if m else ''
                stack.append((is_function, statement_line or number, name))
                statement, statement_line = '', 0
            elif c == '}':
                if stack:
                    is_function, start, name = stack.pop()
                    if is_function and number - start + 1 > limit:
                        found.append((start, name, number - start + 1))
                statement, statement_line = '', 0
            elif c == ';':
                statement, statement_line = '', 0
            else:
                if not statement.strip() and not c.isspace():
                    statement_line = number
                statement += c
        if line.lstrip().startswith('#'):
            statement, statement_line = '', 0
        else:
            statement += ' '
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--max', type=int, default=60, help='longest allowed, in lines (60)')
    ap.add_argument('files', nargs='+')
    args = ap.parse_args()
    over = 0
    for path in args.files:
        for start, name, length in long_functions(path, args.max):
            print(f'{path}:{start}: {name}: {length} lines')
            over += 1
    print(f'{over} function(s) over {args.max} lines in {len(args.files)} file(s)', file=sys.stderr)
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main())
