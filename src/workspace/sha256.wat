;; SHA-256's block compression (FIPS 180-4, section 6.2.2), the part of
;; `sha256.ts` that runs in WebAssembly. `deno task wasm` assembles it into
;; `sha256_wasm.ts`; `tests/workspace/sha256_wasm_test.ts` checks the two
;; agree.
;;
;; Memory, in bytes: 0..256 the round constants K and 256..288 the state
;; H0..H7 (both little-endian words, written and read by the host),
;; 288..544 the message schedule W, and from 1024 the blocks to compress.
(module
  (memory (export "memory") 2)

  ;; Compresses `$blocks` 64-byte blocks starting at `$ptr` into the state.
  (func (export "compress") (param $ptr i32) (param $blocks i32)
    (local $end i32) (local $t i32) (local $x i32) (local $y i32)
    (local $t1 i32) (local $t2 i32)
    (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local $e i32) (local $f i32) (local $g i32) (local $h i32)
    (local.set $end
      (i32.add (local.get $ptr) (i32.shl (local.get $blocks) (i32.const 6))))
    (block $done
      (loop $block
        (br_if $done (i32.ge_u (local.get $ptr) (local.get $end)))

        ;; W[0..16): the block's words, big-endian.
        (local.set $t (i32.const 0))
        (loop $load
          (local.set $x (i32.load (i32.add (local.get $ptr) (local.get $t))))
          (i32.store offset=288 (local.get $t)
            (i32.or
              (i32.rotl
                (i32.and (local.get $x) (i32.const 0xff00ff00))
                (i32.const 8))
              (i32.rotr
                (i32.and (local.get $x) (i32.const 0x00ff00ff))
                (i32.const 8))))
          (br_if $load
            (i32.lt_u
              (local.tee $t (i32.add (local.get $t) (i32.const 4)))
              (i32.const 64))))

        ;; W[16..64): W[t-16] + σ0(W[t-15]) + W[t-7] + σ1(W[t-2]).
        (loop $extend
          (local.set $x
            (i32.load offset=288 (i32.sub (local.get $t) (i32.const 60))))
          (local.set $y
            (i32.load offset=288 (i32.sub (local.get $t) (i32.const 8))))
          (i32.store offset=288 (local.get $t)
            (i32.add
              (i32.add
                (i32.load offset=288 (i32.sub (local.get $t) (i32.const 64)))
                (i32.xor
                  (i32.xor
                    (i32.rotr (local.get $x) (i32.const 7))
                    (i32.rotr (local.get $x) (i32.const 18)))
                  (i32.shr_u (local.get $x) (i32.const 3))))
              (i32.add
                (i32.load offset=288 (i32.sub (local.get $t) (i32.const 28)))
                (i32.xor
                  (i32.xor
                    (i32.rotr (local.get $y) (i32.const 17))
                    (i32.rotr (local.get $y) (i32.const 19)))
                  (i32.shr_u (local.get $y) (i32.const 10))))))
          (br_if $extend
            (i32.lt_u
              (local.tee $t (i32.add (local.get $t) (i32.const 4)))
              (i32.const 256))))

        (local.set $a (i32.load offset=256 (i32.const 0)))
        (local.set $b (i32.load offset=260 (i32.const 0)))
        (local.set $c (i32.load offset=264 (i32.const 0)))
        (local.set $d (i32.load offset=268 (i32.const 0)))
        (local.set $e (i32.load offset=272 (i32.const 0)))
        (local.set $f (i32.load offset=276 (i32.const 0)))
        (local.set $g (i32.load offset=280 (i32.const 0)))
        (local.set $h (i32.load offset=284 (i32.const 0)))

        ;; The 64 rounds.
        (local.set $t (i32.const 0))
        (loop $round
          ;; T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t]
          (local.set $t1
            (i32.add
              (i32.add
                (i32.add
                  (local.get $h)
                  (i32.xor
                    (i32.xor
                      (i32.rotr (local.get $e) (i32.const 6))
                      (i32.rotr (local.get $e) (i32.const 11)))
                    (i32.rotr (local.get $e) (i32.const 25))))
                (i32.xor
                  (local.get $g)
                  (i32.and
                    (local.get $e)
                    (i32.xor (local.get $f) (local.get $g)))))
              (i32.add
                (i32.load (local.get $t))
                (i32.load offset=288 (local.get $t)))))
          ;; T2 = Σ0(a) + Maj(a, b, c)
          (local.set $t2
            (i32.add
              (i32.xor
                (i32.xor
                  (i32.rotr (local.get $a) (i32.const 2))
                  (i32.rotr (local.get $a) (i32.const 13)))
                (i32.rotr (local.get $a) (i32.const 22)))
              (i32.or
                (i32.and (local.get $a) (local.get $b))
                (i32.and
                  (local.get $c)
                  (i32.or (local.get $a) (local.get $b))))))
          (local.set $h (local.get $g))
          (local.set $g (local.get $f))
          (local.set $f (local.get $e))
          (local.set $e (i32.add (local.get $d) (local.get $t1)))
          (local.set $d (local.get $c))
          (local.set $c (local.get $b))
          (local.set $b (local.get $a))
          (local.set $a (i32.add (local.get $t1) (local.get $t2)))
          (br_if $round
            (i32.lt_u
              (local.tee $t (i32.add (local.get $t) (i32.const 4)))
              (i32.const 256))))

        (i32.store offset=256 (i32.const 0)
          (i32.add (i32.load offset=256 (i32.const 0)) (local.get $a)))
        (i32.store offset=260 (i32.const 0)
          (i32.add (i32.load offset=260 (i32.const 0)) (local.get $b)))
        (i32.store offset=264 (i32.const 0)
          (i32.add (i32.load offset=264 (i32.const 0)) (local.get $c)))
        (i32.store offset=268 (i32.const 0)
          (i32.add (i32.load offset=268 (i32.const 0)) (local.get $d)))
        (i32.store offset=272 (i32.const 0)
          (i32.add (i32.load offset=272 (i32.const 0)) (local.get $e)))
        (i32.store offset=276 (i32.const 0)
          (i32.add (i32.load offset=276 (i32.const 0)) (local.get $f)))
        (i32.store offset=280 (i32.const 0)
          (i32.add (i32.load offset=280 (i32.const 0)) (local.get $g)))
        (i32.store offset=284 (i32.const 0)
          (i32.add (i32.load offset=284 (i32.const 0)) (local.get $h)))

        (local.set $ptr (i32.add (local.get $ptr) (i32.const 64)))
        (br $block)))))
