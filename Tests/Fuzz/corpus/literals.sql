SELECT 'it''s', "a""b", `c``d`, [e f], x'00FF', X'', 0x1F, 3.14, .5, 1e-3, 12abc,
       ?, ?12, :name, @v, $x, $a::b, $arr(1), a || b, a << 2, a >> 1, a <= b, a >= b,
       a == b, a != b, a <> b, doc -> '$.a', doc ->> 'b', ~a, -a, +a, a % 2, a & 1, !a
FROM t; -- trailing comment
/* block ; comment */ SELECT 1
