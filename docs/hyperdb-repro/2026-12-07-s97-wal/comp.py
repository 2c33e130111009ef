import json,re,collections,sys
for f in sys.argv[1:]:
    agg=collections.defaultdict(lambda:[0,0,0,0,0]); start={}
    for line in open(f):
        m=re.search(r'EVENT_LOG_v1 (\{.*\})',line)
        if not m: continue
        e=json.loads(m.group(1))
        if e.get('event')=='compaction_started':
            ins={int(k[7:]):len(v) for k,v in e.items() if k.startswith('files_L')}
            start[e['job']]=(min(ins), ins, e.get('input_data_size',0))
        if e.get('event')=='compaction_finished' and e['job'] in start:
            lo,ins,sz=start[e['job']]; key=(lo,e['output_level'])
            a=agg[key]; a[0]+=1; a[1]+=sum(ins.values()); a[2]+=sz; a[3]+=e['num_output_files']; a[4]+=e['total_output_size']
            last=e['lsm_state']
    print(f, 'lsm', last)
    for k,v in sorted(agg.items()): print('  L%d->L%d'%k, 'n',v[0],'inputs',v[1],'in MiB %.0f'%(v[2]/2**20),'outputs',v[3],'out MiB %.0f'%(v[4]/2**20))
