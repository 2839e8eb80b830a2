"""The one thing pyproject.toml cannot say: the face's compiled polygon fill and display encoder.

``driver.animation._compiled`` is built where a C compiler is at hand and skipped where it is not
(``optional=True``): the numpy code in ``driver/animation/raster.py`` and ``display.py`` does the same, only
slower. Everything else about the package is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("driver.animation._compiled", ["driver/animation/_compiled.c"], optional=True)])
