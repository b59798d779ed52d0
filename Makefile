# The two set-up commands: `make run` and `make test`. Each installs the Debian packages it needs
# when they are missing (as root or with password-less sudo; otherwise it stops and prints the
# one command to run) and creates .venv when it is missing.
#   make run:  what serving needs (no torch: the models run on ONNX Runtime)
#   make test: everything, the training extra included (tests train tiny models)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SERVE_STAMP := $(VENV)/.installed-serve
SERVE_PACKAGES := libgl1 libglib2.0-0 libportaudio2 espeak-ng
TEST_PACKAGES := $(SERVE_PACKAGES) chromium

.PHONY: run test screenshots format bench clean system-serve system-test

system-serve:
	@scripts/system-packages $(SERVE_PACKAGES)

system-test:
	@scripts/system-packages $(TEST_PACKAGES)

$(VENV)/bin/python:
	@echo "==> creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Serving only: templecam and its run-time dependencies.
$(SERVE_STAMP): pyproject.toml | $(VENV)/bin/python
	@echo "==> installing templecam (serving: no training dependencies)"
	$(BIN)/python -m pip install --progress-bar off -e .
	@touch $(SERVE_STAMP)

# Everything: the tests and the training commands (torch, Ultralytics).
$(STAMP): pyproject.toml | $(VENV)/bin/python
	@echo "==> installing templecam with the test and training extras"
	$(BIN)/python -m pip install --progress-bar off -e '.[dev,train]'
	@touch $(STAMP) $(SERVE_STAMP)

run: system-serve $(SERVE_STAMP)
	@echo "==> starting the dashboard: open http://127.0.0.1:8000/ (Ctrl-C stops; the game resumes)"
	$(BIN)/templecam serve

test: system-test $(STAMP)
	@echo "==> lint (ruff), types of the rules engine (mypy), then the whole test suite (pytest)"
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/pytest

screenshots: system-test $(STAMP)
	TEMPLECAM_SCREENSHOTS=docs/screenshots $(BIN)/pytest tests/server/test_browser.py tests/server/test_corrections_browser.py tests/server/test_vision_browser.py tests/server/test_layouts.py tests/server/test_camera_browser.py tests/server/test_modules_browser.py tests/server/test_special_browser.py tests/server/test_quests_browser.py tests/server/test_characters_browser.py tests/server/test_traps_browser.py tests/server/test_time_browser.py tests/server/test_teach_browser.py tests/server/test_story_browser.py tests/server/test_timer_options_browser.py tests/server/test_queenie_browser.py tests/server/test_queenie_setup_browser.py

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/templecam bench rules

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .hypothesis
