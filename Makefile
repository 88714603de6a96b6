# Two commands matter (see README.md): `make book` and `make test`.
# Both create .venv when it is missing and install requirements.txt and the package.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
MATHJAX := _mathjax/mathjax
CHROMEDRIVER := /usr/bin/chromedriver
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup test test-unit test-other-cpu test-exhaustive test-browser book lab student execute clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml setup.py $(wildcard src/bpe_lesson/_compiled/*.pyx src/bpe_lesson/_compiled/*.pxd src/bpe_lesson/_compiled/*.pxi src/bpe_lesson/_compiled/*.h)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-build-isolation -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (bpe-lesson)" >/dev/null
	@touch $(STAMP)

# MathJax served from the files the pip package jupyter-server-mathjax installs (no CDN)
$(MATHJAX)/MathJax.js: $(STAMP)
	@mkdir -p _mathjax
	rm -rf $(MATHJAX)
	cp -r "$$($(PY) -c 'import jupyter_server_mathjax, os; print(os.path.join(os.path.dirname(jupyter_server_mathjax.__file__), "static"))')" $(MATHJAX)

# unit tests (Cython backend, both backends parametrized), the whole suite again with
# the pure-Python backend forced, every chapter with nbval, every chapter again on other
# floating-point kernels, then the built book in a browser. Each stage stops the rest.
test: setup
	$(PY) -m pytest -q tests
	BPE_LESSON_PUREPYTHON=1 $(PY) -m pytest -q tests -m "not slow"
	$(PY) -m pytest -q --nbval book/
	$(MAKE) test-other-cpu
	$(MAKE) book
	$(MAKE) test-browser

# The chapters again as a CPU of another family computes them: OpenBLAS (numpy) on its
# Sandybridge kernels (AVX, no FMA: any x86-64 since 2011 runs them) and PyTorch on its
# unvectorized ones. Intel AVX-512, AMD Zen and these differ in a float's last bits, so a
# stored output that shows those bits fails here, not on a reader's machine.
OTHER_CPU := OPENBLAS_CORETYPE=Sandybridge ATEN_CPU_CAPABILITY=default
test-other-cpu: setup
	$(OTHER_CPU) $(PY) -m pytest -q --nbval book/

# every page of _build/html in headless Chromium (run `make book` first; `make test` does);
# one screenshot per page in _build/screenshots/; then three chapters in a real JupyterLab
test-browser: setup $(CHROMEDRIVER)
	$(PY) -m pytest -q tests/browser/check_pages.py tests/browser/check_live_tokenizer.py tests/browser/check_jupyterlab.py

# Debian's chromium and its driver, when missing
$(CHROMEDRIVER):
	$(SUDO) apt-get update
	$(SUDO) apt-get install -y chromium chromium-driver

test-unit: setup
	$(PY) -m pytest -q tests

# every code point on the readable encoder too (about 15 minutes; make test sweeps the compiled one)
test-exhaustive: setup
	$(PY) -m pytest -q tests/test_unicode_classes.py -m "slow or exhaustive"

book: setup $(MATHJAX)/MathJax.js
	$(VENV)/bin/jupyter-book build --all -W -n --keep-going .

# re-run chapters in place so their stored outputs are what executing them prints:
# make execute NB="book/the_merge_rule.ipynb book/training_fast.ipynb" (default: every chapter);
# then each markdown cell's {eval}`glued(...)` numbers are stored in its metadata
# (user_expressions), which JupyterLab shows without running anything
NB ?= book/*.ipynb
execute: setup
	$(VENV)/bin/jupyter nbconvert --to notebook --execute --inplace --ExecutePreprocessor.timeout=900 \
		--ExecutePreprocessor.record_timing=False --ExecutePreprocessor.kernel_name=python3 $(NB)
	$(PY) -m bpe_lesson.teaching.glue $(NB)

lab: setup
	$(VENV)/bin/jupyter lab book/

student: setup
	$(PY) -m bpe_lesson.teaching.exercises strip book/ student/

clean:
	rm -rf _build _mathjax student build src/*.egg-info
