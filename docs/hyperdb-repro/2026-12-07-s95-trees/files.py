import re,collections,sys
def files(prefix):
    log=open(prefix+'.LOG',errors='replace').read()
    job_level={}; tab_level={}; tab_bytes={}
    for m in re.finditer(r'\[JOB (\d+)\] Compacting .* files to L(\d+)', log): job_level[m.group(1)]=int(m.group(2))
    for m in re.finditer(r'\[JOB (\d+)\] Level-0 flush table #(\d+)', log): tab_level[int(m.group(2))]=0
    for m in re.finditer(r'\[JOB (\d+)\] Generated table #(\d+): \d+ keys, (\d+) bytes', log): tab_level[int(m.group(2))]=job_level.get(m.group(1),-1)
    f=collections.defaultdict(list)
    for l in open(prefix+'.err',errors='replace'):
        if l.startswith('place '):
            _,path,role,tier,size=l.split(); f[path].append((tier,role))
    c=collections.Counter()
    for path,t in f.items():
        m=re.search(r'/(\d+)\.sst$',path)
        if not m: continue
        key=f'L{tab_level.get(int(m.group(1)),"?")}'
        kind='fast' if all(x[0]=='fast' for x in t) else 'slow' if all(x[0]=='slow' for x in t) else 'mixed'
        c[(key,kind)]+=1
    comps=len(re.findall('Compacting',log)); flushes=len(re.findall(r'flush table #\d+: \d+ bytes OK',log))
    return c,comps,flushes
for p in sys.argv[1:]:
    c,comps,fl=files(p); keys=sorted(set(k for k,_ in c))
    print(p.split('/')[-1], f'flushes {fl} compactions {comps}', ' '.join(f"{k}:{c[(k,'fast')]}/{c[(k,'mixed')]}/{c[(k,'slow')]}" for k in keys))
