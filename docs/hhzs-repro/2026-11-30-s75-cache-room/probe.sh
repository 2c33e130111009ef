set -e
export B=/tmp/ci-check-s74c/build
R=/tmp/s74/rdb.sh
HP="policy=hhzs:table_bytes=1969225,wal_budget=4MiB,migration_rate=4096KiB,cache=all"
for W in ${WS:-C}; do
 for V in ${VS:-NOMIG}; do
  case $V in
   B3) echo "== $W B3"; bash $R phase "" /tmp/s73/R-b3 $W ${OPS:-9765}; continue;;
   HINTFS) Q="blocks=32MiB";;
   FREE) Q="blocks=32MiB&$HP,cache_room=free";;
   NOMIG) Q="blocks=32MiB&$HP,cache_room=free,migration=off";;
   NOBLK) Q="$HP,cache_room=free";;
   NOMIGB) Q="$HP,cache_room=free,migration=off";;
  esac
  echo "== $W $V"; bash $R phase "$Q" /tmp/s74/R-hintfs $W ${OPS:-9765}
  python3 -c "import json;d=json.load(open('/tmp/s74/R-hintfs/info-$W.json'));c=d['cache'];print('cache hits',c['hits'],'lookups',c['lookups'],'zones',c['zones'],'admitted',c['admitted'],'turned_away',c['turned_away'],'given_back',c['given_back_zones'], 'moves', d['migration']['moves'])"
 done
done
