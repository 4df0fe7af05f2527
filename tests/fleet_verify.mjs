// fleet_verify.mjs - verifies proofs with snarkjs in one node process:
//     node tests/fleet_verify.mjs VK.json PROOF.json PUBLIC.json [VK PROOF PUBLIC ...]
// PROOF and PUBLIC are as `slotprove wait` writes them: one proof object and
// one public array, or arrays of them (one per partition). Prints
// "verified N" and exits 0 when every proof verifies, else names the bad
// ones and exits 1.
import { readFileSync } from "fs";
import * as snarkjs from "snarkjs";

const args = process.argv.slice(2);
let ok = 0, bad = 0;
for (let i = 0; i + 2 < args.length; i += 3) {
    const vk = JSON.parse(readFileSync(args[i]));
    let proofs = JSON.parse(readFileSync(args[i + 1]));
    let pubs = JSON.parse(readFileSync(args[i + 2]));
    if (!Array.isArray(proofs)) { proofs = [proofs]; pubs = [pubs]; }
    if (proofs.length !== pubs.length) { console.log(`${args[i + 1]}: ${proofs.length} proofs, ${pubs.length} publics`); bad++; continue; }
    for (let k = 0; k < proofs.length; k++) {
        let good = false;
        try { good = await snarkjs.groth16.verify(vk, pubs[k], proofs[k], { info() {}, debug() {}, warn() {}, error() {} }); } catch (e) { good = false; }
        if (good) ok++;
        else { bad++; console.log(`${args[i + 1]}: proof ${k} does not verify`); }
    }
}
console.log(`verified ${ok}, rejected ${bad}`);
process.exit(bad === 0 && ok > 0 ? 0 : 1);
