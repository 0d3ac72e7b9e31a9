#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Compare two verbose unittest logs of rdma-core's pyverbs suite.

usage: pyverbs-compare.py REFERENCE.log CANDIDATE.log

Prints both tallies side by side and every test that passed on the
reference device but not on the candidate.  Exit status 1 if there is
any such test or a log holds no results, else 0.
"""
import re
import sys

START = re.compile(r'^(test\w*) \(([\w.]+)\)', re.M)
# The verdict follows " ... ", or starts a line of its own when the test
# printed something first.
RESULT = re.compile(r'(?:\.\.\. |^)(ok|skipped|FAIL|ERROR|expected failure|'
                    r'unexpected success)\b(.*)', re.M)
STATUSES = ('ok', 'skipped', 'FAIL', 'ERROR')


def parse(path):
    with open(path, errors='replace') as f:
        text = f.read()
    found = {}
    starts = list(START.finditer(text))
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        r = RESULT.search(text, m.end(), end)
        name = m.group(2)
        if not name.endswith('.' + m.group(1)):
            name += '.' + m.group(1)
        if r:
            status = r.group(1)
            if status == 'expected failure':
                status = 'ok'
            elif status == 'unexpected success':
                status = 'FAIL'
            found[name] = (status, r.group(2).strip())
        else:
            found[name] = ('ERROR', 'no result (crash or timeout)')
    return found


def tally(res):
    return {s: sum(1 for v in res.values() if v[0] == s) for s in STATUSES}


def main():
    ref_path, cand_path = sys.argv[1:3]
    ref, cand = parse(ref_path), parse(cand_path)
    tr, tc = tally(ref), tally(cand)
    # Row names that do not start like the suite's own ok/FAIL lines.
    label = {'ok': 'passed', 'skipped': 'skipped', 'FAIL': 'failed',
             'ERROR': 'errors'}
    print(f"{'pyverbs':<10}{'rxe':>8}{'mroce':>8}")
    for s in STATUSES:
        print(f"{label[s]:<10}{tr[s]:>8}{tc[s]:>8}")
    print(f"{'total':<10}{len(ref):>8}{len(cand):>8}")
    missing = sorted(t for t, v in ref.items()
                     if v[0] == 'ok' and cand.get(t, ('absent',))[0] != 'ok')
    for t in missing:
        st, why = cand.get(t, ('absent', ''))
        print(f"REGRESSION {t}: rxe ok, mroce {st} {why}".rstrip())
    extra = sorted(t for t, v in cand.items()
                   if v[0] == 'ok' and ref.get(t, ('absent',))[0] != 'ok')
    print(f"mroce passes {len(extra)} tests rxe does not")
    for t in sorted(t for t, v in cand.items() if v[0] in ('FAIL', 'ERROR')):
        print(f"mroce {cand[t][0]}: {t}")
    for t in sorted(t for t, v in cand.items() if v[0] == 'skipped'):
        print(f"mroce skipped: {t} {cand[t][1]}")
    if not ref or not cand:
        print("no results in a log")
        return 1
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
