# The two set-up commands: `make run` and `make test`. Either creates .venv when it is missing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test screenshots format bench clean

$(STAMP): pyproject.toml
	@echo "==> creating $(VENV) with $(PYTHON) and installing templecam with everything it needs"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar off -e '.[dev,train]'
	@touch $(STAMP)

run: $(STAMP)
	@echo "==> starting the dashboard: open http://127.0.0.1:8000/ (Ctrl-C stops; the game resumes)"
	$(BIN)/templecam serve

test: $(STAMP)
	@echo "==> lint (ruff), then the whole test suite (pytest)"
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest

screenshots: $(STAMP)
	TEMPLECAM_SCREENSHOTS=docs/screenshots $(BIN)/pytest tests/server/test_browser.py tests/server/test_corrections_browser.py tests/server/test_vision_browser.py

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/templecam bench rules

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .hypothesis
