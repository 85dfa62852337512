{# Template macros shared by the kernel families. #}
{% macro vector_helpers(dim, w) -%}
{% if w == 1 -%}
typedef real real{{ dim }};
#define VLOAD{{ dim }}(p) (*(p))
#define VSTORE{{ dim }}(v, p) (*(p) = (v))
#define UNPACK{{ dim }}(dst, b, v) dst[(b)] = (v);
{% else -%}
typedef real{{ w }} real{{ dim }};
#define VLOAD{{ dim }}(p) vload{{ w }}(0, (p))
#define VSTORE{{ dim }}(v, p) vstore{{ w }}((v), 0, (p))
#define UNPACK{{ dim }}(dst, b, v) {% for i in range(end=w) %}dst[(b) + {{ i }}] = (v).s{{ i }}; {% endfor %}
{% endif -%}
{% endmacro vector_helpers %}

{% macro stage(name, R, DIMO, dim) -%}
inline void stage_{{ name }}(__local real* lm, const __global real* X, const int ld, const int along_outer,
                     const int outer, const int K, const int o0, const int k0, const int tid) {
    const bool interior = (o0 + {{ R }} <= outer) && (k0 + KWG <= K);
    if (along_outer) {
        const int to = tid % {{ DIMO }};
        const int tk = tid / {{ DIMO }};
        #pragma unroll
        for (int kl = 0; kl < KWG / (WGS / {{ DIMO }}); kl++) {
            const int kk = tk + kl * (WGS / {{ DIMO }});
            #pragma unroll
            for (int ov = 0; ov < {{ R }} / ({{ DIMO }} * VW{{ dim }}); ov++) {
                const int r = (to + ov * {{ DIMO }}) * VW{{ dim }};
                if (interior) {
                    const real{{ dim }} v = VLOAD{{ dim }}(X + (o0 + r) + (k0 + kk) * ld);
                    VSTORE{{ dim }}(v, lm + kk * {{ R }} + r);
                } else {
                    for (int e = 0; e < VW{{ dim }}; e++) {
                        const int o = o0 + r + e, p = k0 + kk;
                        lm[kk * {{ R }} + r + e] = (o < outer && p < K) ? X[o + p * ld] : ZERO;
                    }
                }
            }
        }
    } else {
        #pragma unroll
        for (int l = 0; l < ({{ R }} * KWG) / WGS; l++) {
            const int e = tid + l * WGS;
            const int kk = e % KWG, r = e / KWG;
            const int o = o0 + r, p = k0 + kk;
            lm[kk * {{ R }} + r] = (interior || (o < outer && p < K)) ? X[p + o * ld] : ZERO;
        }
    }
}
{%- endmacro stage %}
