# bpe-viz developer commands. Everything runs inside .venv, made on first use.
#   make test    install (if needed), run the tests, then check the notebooks with nbval
#   make check   the fast inner loop: everything but the Binder build and the browser tests
#   make lab     JupyterLab on notebooks/: the lessons, deep-dives/ beside them (LAB_ARGS="--port 8899
#                --no-browser" to pass options)
#   make present the first lesson as a Voilà app, no code (PRESENT=notebooks/ for all of them)
#   make bench   the benchmark; writes docs/benchmarks.md
#   make bench-browser  the step latency in JupyterLab in Chromium (tests/browser/test_latency.py);
#                writes docs/browser-latency.md and .json (docs/benchmarks.md shows them)
#   make lite    the JupyterLite site in _site/: the lessons in the browser, no server
#                (tools/build_lite.py; serve it with python -m http.server -d _site)
#   make pictures  the README's pictures (docs/stepper.png, docs/voila.png), taken in Chromium
#                from the current code (the tests take them into test-artifacts/, never into docs/)
#   make clean   remove the venv and caches

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PIP    := $(PY) -m pip --disable-pip-version-check -qq

# Jupyter refuses to start as root unless told it may: containers and CI machines run as root
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)
# nbval on every notebook: the core lessons and notebooks/deep-dives/ (pytest recurses into the
# folder and, by its norecursedirs default ".*", never into .ipynb_checkpoints)
NBVAL := --nbval --nbval-current-env notebooks --nbval-sanitize-with tests/nbval_sanitize.cfg

.PHONY: venv test check lab present bench bench-browser lite pictures clean

venv: $(STAMP)

$(PY):
	$(PYTHON) -m venv $(VENV)

# reinstall only when the requirements (or the package metadata) change
$(STAMP): requirements.txt requirements-nodeps.txt pyproject.toml | $(PY)
	@echo "Installing requirements into $(VENV) ..."
	$(PIP) install -r requirements.txt
	$(PIP) install --no-deps -r requirements-nodeps.txt
	$(PIP) install -e .
	@touch $@

test: $(STAMP)
	$(PY) -m pytest tests
	@if ls notebooks/*.ipynb >/dev/null 2>&1; then \
		echo "Checking notebooks with nbval ..."; \
		$(PY) -m pytest $(NBVAL); \
		rc=$$?; \
		if [ $$rc -eq 5 ]; then echo "nbval: no notebook cells collected"; rc=0; fi; \
		exit $$rc; \
	else \
		echo "No notebooks in notebooks/: nbval step skipped"; \
	fi

check: $(STAMP)
	$(PY) -m pytest tests -m "not slow" --ignore=tests/browser
	$(PY) -m pytest $(NBVAL)

# subtle: notebook_shim, a server extension JupyterLab installs for the classic Notebook's
# extensions, reads every setting of the server as it starts; reading ServerApp.token, which
# jupyter_server 2 deprecated, prints a DeprecationWarning with a source line that reads like an
# error (Voilà's extension makes traitlets' deprecation warnings show). Setting the token does not
# help (--IdentityProvider.token is still read through ServerApp.token, and setting both logs a
# warning of its own); nothing here uses classic-Notebook extensions, so the shim stays off.
LAB_QUIET := --ServerApp.jpserver_extensions="{'notebook_shim': False}"
# no browser to open (a container, CI, ssh): the URL to paste, without Jupyter's "No web browser
# found" warning (the same test Jupyter makes; only evaluated when `make lab` runs)
LAB_BROWSER = $(shell $(PY) -c "import webbrowser; webbrowser.get()" >/dev/null 2>&1 || echo --no-browser)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab $(ROOT_FLAG) $(LAB_QUIET) $(LAB_BROWSER) $(LAB_ARGS) notebooks/

PRESENT ?= notebooks/01_from_compression_to_subwords.ipynb

present: $(STAMP)
	$(VENV)/bin/voila $(if $(ROOT_FLAG),--ServerApp.allow_root=True) $(PRESENT_ARGS) $(PRESENT)

bench: $(STAMP)
	$(PY) benchmarks/bench.py

bench-browser: $(STAMP)
	$(PY) benchmarks/browser_latency.py

lite: $(STAMP)
	$(PY) tools/build_lite.py

PICTURES := test-artifacts/browser/pictures
PICTURE_TESTS := tests/browser/test_lab.py::test_stepper_screenshot \
	"tests/browser/test_voila.py::test_voila_app[01_from_compression_to_subwords]"

pictures: $(STAMP)
	$(PY) -m pytest -rs $(PICTURE_TESTS)
	@test -f $(PICTURES)/stepper.png -a -f $(PICTURES)/voila.png || \
		{ echo "make pictures: no pictures were taken (no chromium? see the skip reason above)"; exit 1; }
	cp $(PICTURES)/stepper.png $(PICTURES)/voila.png docs/

clean:
	rm -rf $(VENV) build dist _site lite/node_modules *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
