#!/usr/bin/env node
'use strict';
// Helper of benches/puzzlescript_reference.sh (run by it, not by hand).
//
//   node puzzlescript_reference.js games CASES.jsonl OUTDIR
//     writes each distinct game of a conformance file to OUTDIR/NNN.txt (in the order of
//     their first case) and prints `NNN.txt<TAB>first case's name` a line.
//   node puzzlescript_reference.js time BFS.js GAME INDEX [bfs.js options]
//     runs the reference's breadth-first driver unchanged and adds to its JSON line the
//     search phase alone, timed from the end of its level load (compile and load excluded)
//     to its output: `search_wall` (high-resolution wall seconds, where bfs.js's own
//     `seconds` counts whole milliseconds) and `search_cpu` (the process's user + system
//     seconds over the same span).
const fs = require('fs');
const path = require('path');

function games(cases, outdir) {
    const seen = new Map();
    for (const line of fs.readFileSync(cases, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const c = JSON.parse(line);
        if (!seen.has(c.source)) seen.set(c.source, c.name);
    }
    let i = 0;
    for (const [source, name] of seen) {
        const file = String(i++).padStart(3, '0') + '.txt';
        fs.writeFileSync(path.join(outdir, file), source);
        console.log(file + '\t' + name.replace(/\s+/g, ' ').replace(/\|/g, '/'));
    }
}

function time(bfs, rest) {
    // bfs.js requires ./psengine.js by the same resolved path, so it gets this very object.
    const engine = require(path.join(path.dirname(path.resolve(bfs)), 'psengine.js'));
    const load = engine.D.loadLevel;
    let wall0 = null;
    let cpu0 = null;
    engine.D.loadLevel = function (...args) {
        const r = load.apply(this, args);
        wall0 = process.hrtime.bigint();
        cpu0 = process.cpuUsage();
        return r;
    };
    const print = console.log;
    console.log = function (text) {
        if (wall0 !== null && typeof text === 'string' && text.startsWith('{')) {
            const out = JSON.parse(text);
            const cpu = process.cpuUsage(cpu0);
            out.search_wall = Number(process.hrtime.bigint() - wall0) / 1e9;
            out.search_cpu = (cpu.user + cpu.system) / 1e6;
            text = JSON.stringify(out);
        }
        print(text);
    };
    process.argv = [process.argv[0], path.resolve(bfs), ...rest];
    require(path.resolve(bfs));
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'games' && args.length === 2) games(args[0], args[1]);
else if (mode === 'time' && args.length >= 3) time(args[0], args.slice(1));
else {
    console.error('usage: puzzlescript_reference.js games CASES OUTDIR | time BFS GAME INDEX [options]');
    process.exit(2);
}
