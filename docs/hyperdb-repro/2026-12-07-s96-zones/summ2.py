import csv,collections,sys,statistics as st
d=collections.defaultdict(list)
for r in csv.DictReader(open('out/results.csv')):
    l=r['label']
    if r['phase']!='run' or not l.startswith('STATIC-M'): continue
    tag,ph=l[7:].split('/')
    tag=tag.rsplit('r',1)[0]
    if not any(tag.startswith(p) for p in sys.argv[1:]): continue
    d[(tag,ph.split('#')[0])].append(float(r['ops_per_s']))
for k in sorted(d): v=d[k]; print(k, len(v), int(st.median(v)), int(min(v)), int(max(v)))
