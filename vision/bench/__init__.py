"""The benchmarks of the run time, apart from the pipeline they measure.

`speed` times the detector under settings (`templecam bench vision`), `events` scores a
rendered game video against its truth (`bench events`), `robustness` reads rendered frames
under camera conditions (`bench robustness`), `soak` runs the live loop for hours (`bench
soak`).
"""
