import { cpuHasVnni, int8WeightCodesForCpu, int8WeightCodesToCompare } from './cpu-int8-codes';

/** A `/proc/cpuinfo` excerpt of two logical CPUs with these flags. */
function cpuinfo(flags: string): string {
  const cpu = (n: number) => `processor\t: ${n}\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU\nflags\t\t: ${flags}\nbugs\t\t: spectre_v1\n`;
  return `${cpu(0)}\n${cpu(1)}`;
}

describe('int8 weight codes for the CPU', () => {
  it('signed codes on x86-64 with AVX-512 VNNI or AVX-VNNI', () => {
    expect(int8WeightCodesForCpu(cpuinfo('fpu sse2 avx2 avx512f avx512bw avx512_vnni avx512_bf16'), 'x64')).toBe('signed');
    expect(int8WeightCodesForCpu(cpuinfo('fpu sse2 avx2 avx_vnni'), 'x64')).toBe('signed');
  });

  it('unsigned codes without VNNI: AVX2 only, AVX-512 without VNNI, a flag that only contains the word', () => {
    expect(int8WeightCodesForCpu(cpuinfo('fpu sse2 avx2 fma'), 'x64')).toBe('unsigned');
    expect(int8WeightCodesForCpu(cpuinfo('fpu sse2 avx2 avx512f avx512bw avx512vl'), 'x64')).toBe('unsigned');
    expect(int8WeightCodesForCpu(cpuinfo('fpu avx512_vnni_like'), 'x64')).toBe('unsigned');
  });

  it('unsigned codes on other architectures and where there is no cpuinfo', () => {
    expect(cpuHasVnni(cpuinfo('fp asimd asimddp avx512_vnni'), 'arm64')).toBe(false);
    expect(int8WeightCodesForCpu('', 'x64')).toBe('unsigned');
  });

  it('compares both codes only where the signed ones run (VNNI), the one in use last', () => {
    expect(int8WeightCodesToCompare(cpuinfo('avx2 avx512_vnni'), 'x64')).toEqual(['unsigned', 'signed']);
    expect(int8WeightCodesToCompare(cpuinfo('avx2'), 'x64')).toEqual(['unsigned']);
    expect(int8WeightCodesToCompare(cpuinfo('avx512_vnni'), 'arm64')).toEqual(['unsigned']);
  });

  it("reads this machine's CPU when given nothing (the same answer every time)", () => {
    const codes = int8WeightCodesForCpu();
    expect(['signed', 'unsigned']).toContain(codes);
    expect(int8WeightCodesForCpu()).toBe(codes);
    process.stdout.write(`this CPU: ${codes} int8 weight codes\n`);
  });
});
