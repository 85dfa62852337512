import json, sys, glob, os, collections
d = sys.argv[1]
best = collections.defaultdict(dict)
for f in glob.glob(d + "/*.jsonl"):
    b = os.path.basename(f)[:-6]  # fewfit-old-f16-NN
    for l in open(f):
        r = json.loads(l)
        if not r.get("valid") or not r.get("times"): continue
        key = (r["m"], r["n"], r["k"])
        t = r["times"]["median_ms"]
        name = r["variant"]["kernel"] + str(sorted(r["variant"]["params"].items()))
        cur = best[b].get(key)
        if cur is None or t < cur[0]: best[b][key] = (t, r["variant"]["params"])
for lay in ["NN", "NT"]:
    o, n = best.get(f"fewfit-old-f16-{lay}", {}), best.get(f"fewfit-f16-{lay}", {})
    for key in sorted(set(o) | set(n)):
        fl = 2 * key[0] * key[1] * key[2]
        to = o.get(key, (float('nan'),))[0]; tn = n.get(key, (float('nan'), {}))
        print(lay, key, f"old {fl/to/1e9:.0f} TF/s" if to == to else "old -", f"new {fl/tn[0]/1e9:.0f} TF/s" if tn[0] == tn[0] else "new -", f"x{to/tn[0]:.2f}", tn[1] if len(tn) > 1 else "")
