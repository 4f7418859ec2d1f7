#!/usr/bin/env python3
"""Check the links of README.md and docs/**/*.md.

    check_links.py SOURCE_DIR

Fails when a relative Markdown link ([text](path) or [text](path#anchor))
leads to a file or directory that does not exist in the source tree, or
when a page refers to ../shared/ (outside the repository: a clone does not
have it).  Links with a scheme (https:, mailto:) and pure #anchors are not
followed.
"""

import os
import re
import sys

LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')


def pages(root):
    yield os.path.join(root, 'README.md')
    for d, subdirs, names in os.walk(os.path.join(root, 'docs')):
        subdirs.sort()
        for n in sorted(names):
            if n.endswith('.md'):
                yield os.path.join(d, n)


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: check_links.py SOURCE_DIR')
    root = os.path.abspath(sys.argv[1])
    bad, n = [], 0
    for page in pages(root):
        rel = os.path.relpath(page, root)
        with open(page, encoding='utf-8') as f:
            text = f.read()
        for line in text.split('\n'):
            if '../shared/' in line:
                bad.append('%s: refers to ../shared/, which is outside the repository: %s'
                           % (rel, line.strip()))
        # Code (fenced blocks and `spans`) is not a link.
        text = re.sub(r'```.*?```', '', text, flags=re.S)
        text = re.sub(r'`[^`\n]*`', '', text)
        for line in text.split('\n'):
            for target in LINK.findall(line):
                if re.match(r'^[a-z][a-z0-9+.-]*:', target) or target.startswith('#'):
                    continue
                n += 1
                path = target.split('#', 1)[0]
                full = os.path.normpath(os.path.join(os.path.dirname(page), path))
                if not full.startswith(root + os.sep) and full != root:
                    bad.append('%s: link %s leaves the repository' % (rel, target))
                elif not os.path.exists(full):
                    bad.append('%s: link %s: no such file' % (rel, target))
    for b in bad:
        print('FAIL: ' + b)
    if not bad:
        print('ok: %d relative links, all lead to files of the repository' % n)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
