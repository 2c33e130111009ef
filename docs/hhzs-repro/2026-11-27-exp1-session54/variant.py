# The reproduction with extra schemes for A/B runs in the same series: each
# NAME=OPTIONS is a scheme whose policy is HHZS's with OPTIONS appended.
# usage: python3 variant.py NAME=,opts [NAME2=,opts] -- <hhzs_repro.py arguments>
# (how this folder's figures were made, from the repository of commit 9816e2a)
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "bench"))
import hhzs_repro as H
sep = sys.argv.index("--")
extra = dict(a.split("=", 1) for a in sys.argv[1:sep])
sys.argv = [sys.argv[0]] + sys.argv[sep + 1:]
base = H.schemes
def schemes(*a, **k):
    s = base(*a, **k)
    for name, opts in extra.items():
        s[name] = s["HHZS"] + opts
    return s
H.schemes = schemes
for name in extra:
    H.EXP1_SCHEMES.append(name)
a = H.parse_args()
H.Repro(a).main()
bad = H.validate(a.out, a)
for p in bad:
    print("hhzs_repro: " + p, file=sys.stderr)
