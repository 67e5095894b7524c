/*
 * fma_peak.c — the FP32 FMA peak of one thread: 12 independent AVX2 FMA chains, GFLOP/s per CPU
 * second (docs/timegan.md §9).
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
static double cpu_s(void){struct timespec ts;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&ts);return ts.tv_sec+1e-9*ts.tv_nsec;}
__attribute__((target("avx2,fma"))) int main(void){
  __m256 a[12]; for(int i=0;i<12;i++)a[i]=_mm256_set1_ps(i*0.001f);
  __m256 x=_mm256_set1_ps(0.999999f), y=_mm256_set1_ps(1e-7f);
  long n=400000000/12; double c0=cpu_s();
  for(long k=0;k<n;k++){
#define F(i) a[i]=_mm256_fmadd_ps(a[i],x,y);
   F(0)F(1)F(2)F(3)F(4)F(5)F(6)F(7)F(8)F(9)F(10)F(11)}
  double t=cpu_s()-c0; float s=0; for(int i=0;i<12;i++){float v[8];_mm256_storeu_ps(v,a[i]);s+=v[0];}
  printf("FMA peak: %.1f GFLOP/s per CPU second (%g)\n", n*12.0*16/t*1e-9, s); return 0;}
