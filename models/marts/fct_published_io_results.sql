-- Published IO results (Fujitsu P3700 report): one row per printed figure, with its load profile,
-- its printed-precision bounds, its layout (drives, processes per drive) and whether the paper stated
-- it jointly for several devices or layouts. Formulas: int_published_io_results_described.
with described as (

    select * from {{ ref('int_published_io_results_described') }}

),

final as (

    select * from described

)

select * from final
