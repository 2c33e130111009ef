# after CI: final binaries (21a4b3a)
cd /tmp/s75
for r in 1 2; do WS="C B" VS="B3 HINTFS FREE" OPS=9765 bash p2.sh; done > p6.log 2>&1
WS="A B C D E F" VS="FREE" OPS=1953 bash p2.sh > p7.log 2>&1
