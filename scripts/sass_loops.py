#!/usr/bin/env python3
"""The multiply loop of one kernel in a disassembly (`nvdisasm -c` or `cuobjdump -sass` of the cubin
that scripts/device/sass.sh makes from a program's PTX): the innermost loop (body between a label and
a backward branch to it) that holds nearly the most FFMAs, its instruction mix, and the order of its shared-memory loads (LDS) among the FFMAs,
which shows whether the next step's fragments are read while the current step multiplies. The
counts are static: both sides of a branch inside the loop count, whichever runs.

Usage: python3 scripts/sass_loops.py FILE.sass KERNEL [--body]   (--body: the loop without its FFMAs)
"""
import argparse
import collections
import re


def instructions(path, kernel):
    """The kernel's instructions in order, and its labels' positions."""
    lines = open(path).read().split('\n')
    start = next(i for i, line in enumerate(lines) if re.match(rf'^(\.text\.)?{kernel}:', line))
    labels, insts = {}, []
    for line in lines[start + 1:]:
        if line.startswith('//----') or re.match(r'^\.text\.', line):
            break
        label = re.match(r'^(\.L_x_\d+):', line)
        if label:
            labels[label.group(1)] = len(insts)
            continue
        inst = re.match(r'\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;', line)
        if inst:
            insts.append(inst.group(1))
    return insts, labels


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('sass')
    p.add_argument('kernel')
    p.add_argument('--body', action='store_true')
    args = p.parse_args()
    insts, labels = instructions(args.sass, args.kernel)
    loops = []
    for i, inst in enumerate(insts):
        target = re.search(r'BRA\s+`?\(?(\.L_x_\d+)', inst)
        if target and labels.get(target.group(1), i + 1) <= i:
            body = insts[labels[target.group(1)]:i + 1]
            loops.append((sum(x.startswith('FFMA') for x in body), -len(body), body))
    most = max(ffmas for ffmas, _, _ in loops)
    _, _, body = max((x for x in loops if x[0] * 10 >= most * 9), key=lambda x: x[1])  # the innermost
    mix = collections.Counter(x.lstrip('@!P0123456789T ').split()[0].split('.')[0] for x in body)
    print(f'{args.kernel}: loop of {len(body)} instructions:', dict(mix.most_common()))
    order, run = [], 0
    for x in body:
        if x.startswith('FFMA'):
            run += 1
        elif x.startswith('LDS'):
            order += [str(run)] if run else []
            order.append('LDS')
            run = 0
    print('LDS among FFMAs (a number: FFMAs in a row):', ' '.join(order + ([str(run)] if run else [])))
    if args.body:
        print('\n'.join(x for x in body if not x.startswith('FFMA')))


if __name__ == '__main__':
    main()
