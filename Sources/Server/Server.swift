internal import Pipeline
