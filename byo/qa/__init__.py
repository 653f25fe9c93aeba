"""Questions and their answers: templates as data (questions/*.yaml), answers from legends."""
