;; The fast scan of 4-bit code lookups (fast-scan.ts; docs/configuration.md, "Vector index (embedded)").
;;
;; André, Kermarrec and Le Scouarnec, "Cache locality is not enough: high-performance nearest neighbor
;; search with product quantization fast scan", VLDB 2015: a query's lookup table of 16 entries per
;; 4-bit code position fits one SIMD register, so one shuffle (here `i8x16.swizzle`) looks up 16 points
;; at once instead of one scalar load per point.
;;
;; Layout (written by FastScanCodes in fast-scan.ts):
;; - lut: `nibbles` rows of 16 unsigned bytes; row j holds the query's quantised partial sums for the 16
;;   values of code nibble j.
;; - blocks: `count` blocks of 32 points, each `nibbles` rows of 16 bytes; in row j of a block, byte i
;;   holds nibble j of the block's point i in its low half and of point 16 + i in its high half.
;; - out: `count` · 32 unsigned 16-bit sums, in point order: out[32·b + i] = Σ_j lut[j][nibble j of
;;   point i of block b]. The sums cannot overflow: fast-scan.ts keeps every entry at most 65535 / nibbles.
(module
  (import "env" "memory" (memory 1))
  (func (export "scan") (param $lut i32) (param $blocks i32) (param $count i32) (param $nibbles i32) (param $out i32)
    (local $b i32) (local $j i32) (local $p i32) (local $t i32)
    (local $v v128) (local $tab v128) (local $rl v128) (local $rh v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $low v128)
    (local.set $low (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))
    (local.set $p (local.get $blocks))
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $b) (local.get $count)))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $t (local.get $lut))
        (local.set $j (local.get $nibbles))
        (loop $row
          (local.set $v (v128.load (local.get $p)))
          (local.set $tab (v128.load (local.get $t)))
          ;; points 0-15 of the block from the low nibbles, 16-31 from the high ones
          (local.set $rl (i8x16.swizzle (local.get $tab) (v128.and (local.get $v) (local.get $low))))
          (local.set $rh (i8x16.swizzle (local.get $tab) (i8x16.shr_u (local.get $v) (i32.const 4))))
          (local.set $a0 (i16x8.add (local.get $a0) (i16x8.extend_low_i8x16_u (local.get $rl))))
          (local.set $a1 (i16x8.add (local.get $a1) (i16x8.extend_high_i8x16_u (local.get $rl))))
          (local.set $a2 (i16x8.add (local.get $a2) (i16x8.extend_low_i8x16_u (local.get $rh))))
          (local.set $a3 (i16x8.add (local.get $a3) (i16x8.extend_high_i8x16_u (local.get $rh))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (local.set $t (i32.add (local.get $t) (i32.const 16)))
          (br_if $row (local.tee $j (i32.sub (local.get $j) (i32.const 1)))))
        (v128.store offset=0 (local.get $out) (local.get $a0))
        (v128.store offset=16 (local.get $out) (local.get $a1))
        (v128.store offset=32 (local.get $out) (local.get $a2))
        (v128.store offset=48 (local.get $out) (local.get $a3))
        (local.set $out (i32.add (local.get $out) (i32.const 64)))
        (local.set $b (i32.add (local.get $b) (i32.const 1)))
        (br $block)))))
