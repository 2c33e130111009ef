import json,re,sys,collections,glob
def levels(logf):
    jobs={}; files={}; flush=set()
    for line in open(logf):
        m=re.search(r'EVENT_LOG_v1 (\{.*\})',line)
        if not m: continue
        e=json.loads(m.group(1))
        ev=e.get('event')
        if ev=='compaction_finished': jobs[e['job']]=e['output_level']
        if ev=='flush_started': flush.add(e['job'])
        if ev=='table_file_creation': files[e['file_number']]=e['job']
    out={}
    for fn,job in files.items():
        out[fn]=0 if job in flush else jobs.get(job,-1)
    return out
if __name__=="__main__":
  for pat in sys.argv[1:]:
     tot=collections.Counter()
     fl=sorted(glob.glob(pat))
     for errf in fl:
         lv=levels(errf[:-4]+'.LOG')
         for line in open(errf):
             m=re.match(r'place /db/(\d+)\.sst 6 (fast|slow) 0$',line)
             if m: tot[(lv.get(int(m.group(1)),-1),m.group(2))]+=1
     print(pat,len(fl),' '.join('L%d:%s=%.1f'%(k[0],k[1],v/len(fl)) for k,v in sorted(tot.items())))
