import { readFileSync } from 'node:fs';
import type { Int8WeightCodes } from './quantise-int8';

/** The CPU flags (Linux `/proc/cpuinfo`) of the VNNI instructions onnxruntime's signed int8 kernels use. */
const VNNI_FLAGS = ['avx512_vnni', 'avx_vnni'];

let cached: string | undefined;

/** Linux's `/proc/cpuinfo`, read once; '' where it does not exist (other systems). */
function procCpuinfo(): string {
  if (cached === undefined) {
    try {
      cached = readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      cached = '';
    }
  }
  return cached;
}

/**
 * Whether the CPU has VNNI (AVX-512 VNNI or AVX-VNNI): an x86-64 CPU whose `flags` line in `cpuinfo`
 * (default: this machine's `/proc/cpuinfo`) lists `avx512_vnni` or `avx_vnni`. False on other
 * architectures and where the file does not exist (macOS, Windows): there the safe codes are used.
 */
export function cpuHasVnni(cpuinfo: string = procCpuinfo(), arch: string = process.arch): boolean {
  if (arch !== 'x64') return false;
  const flags = /^flags\s*:(.*)$/m.exec(cpuinfo)?.[1].trim().split(/\s+/) ?? [];
  return VNNI_FLAGS.some((flag) => flags.includes(flag));
}

/**
 * The int8 weight codes for this CPU ({@link Int8WeightCodes}): `signed` with VNNI, where onnxruntime's
 * uint8 × int8 kernel sums into 32 bits and is about twice as fast as uint8 × uint8 on a 30-token text;
 * `unsigned` everywhere else, where the signed kernel would saturate 16-bit sums (docs/architecture.md,
 * "The embedder").
 */
export function int8WeightCodesForCpu(cpuinfo?: string, arch?: string): Int8WeightCodes {
  return cpuHasVnni(cpuinfo, arch) ? 'signed' : 'unsigned';
}

/**
 * Every int8 weight code this CPU runs at full precision, the one it uses last: `['unsigned', 'signed']`
 * with VNNI, `['unsigned']` elsewhere (the signed kernel would saturate there). For the equivalence spec
 * and the embedder bench, which compare the codes.
 */
export function int8WeightCodesToCompare(cpuinfo?: string, arch?: string): Int8WeightCodes[] {
  return cpuHasVnni(cpuinfo, arch) ? ['unsigned', 'signed'] : ['unsigned'];
}
