{% import "macros.cl" as macros %}
{% include "common.cl" %}

{{ macros::scale_kernel() }}
