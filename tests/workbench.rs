//! End-to-end tests of the terminal workbench in tmux (being written).
