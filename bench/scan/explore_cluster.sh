nvidia-smi --query-gpu=name --format=csv,noheader
for re in 'block scan d2$' 'block scan c2$' 'block scan c4$'; do
  timeout 60 python3 bench/scan/scan.py --gpubench .gpubench --out /tmp/chk --types f32 --rounds 0 --lengths 32,1024,random --only "$re" > /tmp/c.log 2>&1; echo "$re rc=$?"; grep -E "wrong|Error" /tmp/c.log | tail -4 | cut -c1-200
done
timeout 200 bash bench/scan/run.sh --rounds 3 --types f32 --lengths 4096,65536,1M > $OUT/scan_f32.log 2>&1; echo rc=$?; tail -4 $OUT/scan_f32.log | cut -c1-300
timeout 100 bash bench/scan/run.sh profile 1M 'cooplink block scan (d2|c2|c4)$' > $OUT/prof.log 2>&1; echo rc=$?; tail -1 $OUT/prof.log
